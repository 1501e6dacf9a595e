/* The host calls one shim itself; the model .so it loads needs both. */
int aoti_torch_get_sizes(void *t, long **s);
int main(void) { long *s; return aoti_torch_get_sizes(0, &s); }
