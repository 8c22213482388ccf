# add ax, 0x1234 (a length-changing prefix: 0x66 with a 16-bit immediate) stalls the legacy
# predecoder about three cycles each time: the decoders cannot feed the core (front-end bound).
.intel_syntax noprefix
add ax, 0x1234
add bx, 0x1234
add cx, 0x1234
add dx, 0x1234
