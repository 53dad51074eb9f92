// Placeholder: the trace generator lands with its own commit.
#include <cstdio>
int main() { std::puts("steadyscope-gen: not implemented yet"); return 2; }
