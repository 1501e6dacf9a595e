// An ELF shared object that is not an AOTInductor model: no container entry
// points.
extern "C" __attribute__((visibility("default"))) int not_a_model_function(int X) { return X + 1; }
