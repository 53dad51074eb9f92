// The target that builds a precompiled header the test suites reuse (D-069).
int main() { return 0; }
