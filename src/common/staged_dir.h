// A result directory replaced whole: written into a hidden staging
// directory beside it, then swapped into place with one rename
// (renameat2 RENAME_EXCHANGE when an older one is there), under a lock on
// the parent directory. A reader sees the old directory or the new one,
// never a mix, and two writers at once each leave a whole result.
//
// Only cgmem's own directory is ever replaced: the target must be absent,
// empty, hold the marker file, or hold nothing but `known` entries (a result
// written before the marker existed). Anything else is the user's: refused.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem {

class StagedDir {
 public:
  // Checks the target and creates the staging directory beside it, with the
  // marker in it from the start. Staging directories of earlier writers that
  // died (their pid is gone) and that hold the marker are removed.
  static Result<StagedDir> begin(const std::string& target, std::string marker, std::vector<std::string> known);

  StagedDir(StagedDir&& other) noexcept;
  StagedDir& operator=(StagedDir&&) = delete;
  ~StagedDir();  // removes the staging directory unless committed

  // Where to write the result now.
  const std::string& path() const { return staging_; }
  const std::string& target() const { return target_; }

  // Writes the marker and puts the staging directory in the target's place.
  Result<void> commit();

 private:
  StagedDir(std::string target, std::string staging, std::string marker, std::vector<std::string> known)
      : target_(std::move(target)), staging_(std::move(staging)), marker_(std::move(marker)), known_(std::move(known)) {}
  std::string target_, staging_, marker_;
  std::vector<std::string> known_;
  bool done_ = false;
};

}  // namespace cgmem
