//===- TempDir.cpp - Private temporary directories ------------------------===//
#include "TempDir.h"

#include <sys/stat.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>

namespace fs = std::filesystem;

namespace aoti::backend {

/// $TMPDIR, or /tmp when it is unset or empty.
static std::string tempRoot() {
  const char *Base = std::getenv("TMPDIR");
  return Base && *Base ? Base : "/tmp";
}

Expected<TempDir> TempDir::create() {
  std::string Template = tempRoot() + "/aoti-model-XXXXXX";
  if (!mkdtemp(Template.data()))
    return Error(ErrorKind::Io, "cannot create a temporary directory under " +
                                    Template + ": " + std::strerror(errno));
  return TempDir(std::move(Template));
}

TempDir &TempDir::operator=(TempDir &&O) noexcept {
  if (this != &O) {
    this->~TempDir();
    Path = std::move(O.Path);
    Key = std::move(O.Key);
    O.Path.clear();
    O.Key.clear();
  }
  return *this;
}

namespace {

/// The content-keyed directories of this process, under one private parent
/// that exists while any of them does. Its name is fixed for the process,
/// so the same content always gets the same path.
class ContentDirs {
public:
  static ContentDirs &get() {
    static ContentDirs *D = new ContentDirs(); // outlives every Model
    return *D;
  }

  Expected<std::string> acquire(const std::string &Key, bool &Fresh) {
    std::lock_guard<std::mutex> Lock(M);
    if (Uses.empty())
      if (Status S = makeParent(); !S)
        return S.takeError();
    const std::string Dir = Parent + "/" + Key;
    unsigned &N = Uses[Key];
    Fresh = N == 0;
    if (Fresh && mkdir(Dir.c_str(), 0700) != 0) {
      const int E = errno;
      Uses.erase(Key);
      return Error(ErrorKind::Io, "cannot create " + Dir + ": " + std::strerror(E));
    }
    ++N;
    return Dir;
  }

  void release(const std::string &Key) {
    std::lock_guard<std::mutex> Lock(M);
    auto It = Uses.find(Key);
    if (It == Uses.end() || --It->second != 0)
      return;
    Uses.erase(It);
    std::error_code EC;
    fs::remove_all(Parent + "/" + Key, EC);
    if (Uses.empty())
      rmdir(Parent.c_str());
  }

private:
  ContentDirs() {
    std::random_device R;
    char Suffix[17];
    std::snprintf(Suffix, sizeof Suffix, "%08x%08x", R(), R());
    Name = "aoti-model-" + std::to_string(getpid()) + "-" + Suffix;
  }

  /// mkdir, not mkdtemp: the name must stay the same. A directory of that
  /// name made by someone else (a race in a shared /tmp) is not used.
  Status makeParent() {
    Parent = tempRoot() + "/" + Name;
    if (mkdir(Parent.c_str(), 0700) == 0)
      return Status();
    const int E = errno;
    struct stat St;
    if (E == EEXIST && lstat(Parent.c_str(), &St) == 0 && S_ISDIR(St.st_mode) &&
        St.st_uid == geteuid() && (St.st_mode & 077) == 0)
      return Status();
    return Error(ErrorKind::Io, "cannot create the private directory " + Parent + ": " +
                                    (E == EEXIST ? std::string("it exists and is not ours")
                                                 : std::string(std::strerror(E))));
  }

  std::mutex M;
  std::string Name, Parent;
  std::map<std::string, unsigned> Uses;
};

} // namespace

Expected<TempDir> TempDir::forContent(const std::string &Key, bool &Fresh) {
  Expected<std::string> Dir = ContentDirs::get().acquire(Key, Fresh);
  if (!Dir)
    return Dir.takeError();
  return TempDir(std::move(*Dir), Key);
}

TempDir::~TempDir() {
  if (!Key.empty()) {
    ContentDirs::get().release(Key);
    return;
  }
  if (Path.empty())
    return;
  std::error_code EC;
  fs::remove_all(Path, EC);
}

} // namespace aoti::backend
