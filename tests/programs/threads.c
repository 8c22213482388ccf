/* A guest that starts a second thread: mdlsim must refuse it clearly. */
#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
    long *x = arg;
    for (long i = 0; i < 1000; i++)
        *x += i;
    return NULL;
}

int main(void)
{
    pthread_t t;
    long x = 0;
    pthread_create(&t, NULL, work, &x);
    pthread_join(t, NULL);
    printf("%ld\n", x);
    return 0;
}
