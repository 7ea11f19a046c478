// A library with a global and thread-locals, for VariablePrinter_test: its
// thread-locals are reached through the DTV, not the executable's block.
__thread long lib_tls_pad[3] = {1, 2, 3};
__thread int lib_tls = 33;
int lib_global = 77;

int* lib_tls_address(void) { return &lib_tls; }
