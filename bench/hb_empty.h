/* hb_empty.h: the empty hooks of a benchmark's "empty hooks" copy: the
   copy is compiled with -finstrument-functions and its hook symbols are
   renamed to these by objcopy (Makefile: HCCT_EMPTY). Include in one TU. */
#ifndef HB_EMPTY_H
#define HB_EMPTY_H

void hb_empty_enter(void *fn, void *site) __attribute__((noinline, no_instrument_function));
void hb_empty_exit(void *fn, void *site) __attribute__((noinline, no_instrument_function));
void hb_empty_enter(void *fn, void *site)
{
    __asm__ volatile("" ::"r"(fn), "r"(site));
}
void hb_empty_exit(void *fn, void *site)
{
    __asm__ volatile("" ::"r"(fn), "r"(site));
}

#endif
