//===- make_fixtures.cpp - Writes the files the aoti-run CLI tests use ----===//
//
//   make_fixtures DIR MODEL.so MISSING_MODEL.so NOT_A_MODEL.so IN_SO_MODEL.so
//                 NO_WEIGHTS_MODEL.so
//
//===----------------------------------------------------------------------===//
#include "Fixtures.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: %s DIR MODEL.so MISSING_MODEL.so NOT_A_MODEL.so IN_SO_MODEL.so "
                 "NO_WEIGHTS_MODEL.so\n",
                 argv[0]);
    return 2;
  }
  std::string E =
      aoti::testing::writeFixtures(argv[1], {argv[2], argv[3], argv[4], argv[5], argv[6]});
  if (!E.empty()) {
    std::fprintf(stderr, "make_fixtures: %s\n", E.c_str());
    return 1;
  }
  return 0;
}
