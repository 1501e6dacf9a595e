/* The example host: dlopen()s a model the way torch's runner does. It calls no
   shim itself, which is why a plain static link of the shim archive drops
   every one of them. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.so\n", argv[0]);
    return 2;
  }
  void *model = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!model) {
    printf("load failed: %s\n", dlerror());
    return 1;
  }
  printf("loaded %s\n", argv[1]);
  return 0;
}
