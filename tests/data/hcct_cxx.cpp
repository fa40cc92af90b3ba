// A C++ program profiled whole with the HCCT hooks (tests/test_hcct.c,
// hcct_hooks_cxx): its profile names the routines as C++ source spells
// them, demangled by the C++ runtime the program links.
#include <cstdio>

namespace ns {
struct Widget {
    int work(int x);
};
} // namespace ns

__attribute__((noinline)) int ns::Widget::work(int x)
{
    return x * 3 + 1;
}

template <typename T> __attribute__((noinline)) T twice(T v)
{
    return v + v;
}

int main()
{
    ns::Widget w;
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += w.work(i) + twice<long>(i);
    std::printf("%ld\n", s);
    return 0;
}
