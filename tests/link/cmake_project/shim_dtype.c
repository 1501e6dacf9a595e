int aoti_torch_dtype_float32(void) { return 6; }
