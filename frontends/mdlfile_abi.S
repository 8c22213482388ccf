/* The headers a description's generated C needs, inside mdlsim, so that --mdl compiles it
 * against the very layout this mdlsim reads (mdlfile.c writes them beside the generated file). */
    .section .rodata
    .globl mdlfile_machine_h, mdlfile_class_def, mdlfile_depend_def, mdlfile_isa_def, mdlfile_isa_enum_h, mdlfile_param_def
mdlfile_machine_h:
    .incbin "runtime/mdl_machine.h"
    .byte 0
mdlfile_class_def:
    .incbin "mdl/class.def"
    .byte 0
mdlfile_depend_def:
    .incbin "mdl/depend.def"
    .byte 0
mdlfile_isa_def:
    .incbin "mdl/isa.def"
    .byte 0
mdlfile_isa_enum_h:
    .incbin "mdl/isa_enum.h"
    .byte 0
mdlfile_param_def:
    .incbin "mdl/param.def"
    .byte 0
    .section .note.GNU-stack, "", @progbits
