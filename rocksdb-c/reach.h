// A private or protected member of RocksDB's reached by the explicit-instantiation rule (access
// is not checked in an explicit instantiation's template arguments), for the few places that
// must (space_recovery.cc, thrown_reads.cc). `PINROCKS_REACH(Name, Type, Class, member)`
// declares a tag `Name`; `object->*reach(Name{})` is then `object->member`. The type is spelled
// out, so a RocksDB that renames or retypes the member fails to compile.
#ifndef PINROCKS_REACH_H
#define PINROCKS_REACH_H

namespace {

template <typename Tag, typename Tag::type Member>
struct Reach {
  friend typename Tag::type reach(Tag) { return Member; }
};

}  // namespace

#define PINROCKS_REACH(NAME, TYPE, CLASS, MEMBER) \
  struct NAME {                                   \
    using type = TYPE CLASS::*;                   \
    friend type reach(NAME);                      \
  };                                              \
  template struct Reach<NAME, &CLASS::MEMBER>;

#endif  // PINROCKS_REACH_H
