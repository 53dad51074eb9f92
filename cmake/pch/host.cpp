// The target that builds a precompiled header the test suites reuse (D-070).
int main() { return 0; }
