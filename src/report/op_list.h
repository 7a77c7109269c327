// A run's ops in file order. ops.jsonl is scanned in pieces on several
// threads (read_ops.h) and the pieces are kept as they are: joining a
// million ops into one vector would copy 64 MB, about 13 ms, for nothing.
//
// A run that wrote swap counters keeps them beside the ops, one OpSwap per
// op in a parallel piece (op.h); a run that wrote none keeps no such piece.
#pragma once

#include <cassert>
#include <cstddef>
#include <iterator>
#include <vector>

#include "report/op.h"

namespace cgmem::report {

class OpList {
 public:
  using Piece = std::vector<Op>;
  using SwapPiece = std::vector<OpSwap>;  // empty, or one per op of its piece

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Op;
    using difference_type = std::ptrdiff_t;
    using pointer = const Op*;
    using reference = const Op&;

    Iterator() = default;
    reference operator*() const { return (*pieces_)[piece_][i_]; }
    pointer operator->() const { return &**this; }
    Iterator& operator++() {
      if (++i_ == (*pieces_)[piece_].size()) {
        i_ = 0;
        ++piece_;
        skip_empty();
      }
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const Iterator& o) const { return piece_ == o.piece_ && i_ == o.i_; }

   private:
    friend class OpList;
    Iterator(const std::vector<Piece>* pieces, size_t piece) : pieces_(pieces), piece_(piece) { skip_empty(); }
    void skip_empty() {
      while (piece_ < pieces_->size() && (*pieces_)[piece_].empty()) ++piece_;
    }
    const std::vector<Piece>* pieces_ = nullptr;
    size_t piece_ = 0, i_ = 0;
  };

  Iterator begin() const { return {&pieces_, 0}; }
  Iterator end() const { return {&pieces_, pieces_.size()}; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Op& operator[](size_t i) const {
    assert(i < size_);
    for (const Piece& p : pieces_) {
      if (i < p.size()) return p[i];
      i -= p.size();
    }
    return pieces_.back().back();  // not reached for i < size()
  }
  const Op& back() const { return (*this)[size_ - 1]; }
  void push_back(const Op& op) {
    if (pieces_.empty()) pieces_.emplace_back(), swaps_.emplace_back();
    pieces_.back().push_back(op);
    if (!swaps_.back().empty()) swaps_.back().emplace_back();
    ++size_;
  }
  void push_back(const Op& op, const OpSwap& swap) {
    push_back(op);
    SwapPiece& s = swaps_.back();
    s.resize(pieces_.back().size());  // the ops before the first with swap counters have none
    s.back() = swap;
    has_swap_ = true;
  }
  // Appends a piece read elsewhere, without copying it; `swap` is empty or
  // one per op of `piece`.
  void append(Piece piece, SwapPiece swap = {}) {
    assert(swap.empty() || swap.size() == piece.size());
    size_ += piece.size();
    has_swap_ = has_swap_ || !swap.empty();
    pieces_.push_back(std::move(piece));
    swaps_.push_back(std::move(swap));
  }

  // Some op line held swap counters.
  bool has_swap() const { return has_swap_; }
  // f(op, swap) for every op in file order; zero counters for the ops of a
  // piece that had none. Nothing is called in a run without swap counters.
  template <class F>
  void for_each_swap(F f) const {
    if (!has_swap_) return;
    const OpSwap none;
    for (size_t p = 0; p < pieces_.size(); ++p)
      for (size_t i = 0; i < pieces_[p].size(); ++i) f(pieces_[p][i], swaps_[p].empty() ? none : swaps_[p][i]);
  }

 private:
  std::vector<Piece> pieces_;
  std::vector<SwapPiece> swaps_;  // parallel to pieces_
  size_t size_ = 0;
  bool has_swap_ = false;
};

}  // namespace cgmem::report
