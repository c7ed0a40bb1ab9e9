//! Typed entities: a struct stored as named columns through its `EntityCodec`, read in place
//! from the pinned columns through the database and a transaction, scanned in key order,
//! and the typed errors of a column missing or undecodable.

use pinrocks::codec::{BigEndian, Codec, DecodeError, EncodeError, Utf8};
use pinrocks::read::Columns;
use pinrocks::typed::{EncodedColumns, EntityCodec, EntityTable};
use pinrocks::{Db, Error};

use crate::common::{create_options, settle, STAGES};

#[derive(Debug, Clone, PartialEq)]
struct User {
    name: String,
    born: u16,
    langs: Vec<u8>,
}

/// A user as read: the name and languages borrowed from the pinned columns.
#[derive(Debug, PartialEq)]
struct UserRef<'a> {
    name: &'a str,
    born: u16,
    langs: &'a [u8],
}

impl UserRef<'_> {
    fn to_owned(&self) -> User {
        User {
            name: self.name.to_owned(),
            born: self.born,
            langs: self.langs.to_vec(),
        }
    }
}

enum Users {}

impl EntityCodec for Users {
    type Item = User;
    type Decoded<'a> = UserRef<'a>;
    const NAME: &'static str = "Users";

    fn encode(user: &User) -> Result<EncodedColumns, EncodeError> {
        Ok(vec![
            (b"name", user.name.as_bytes().to_vec()),
            (
                b"born",
                BigEndian::<u16>::with_encoded(&user.born, <[u8]>::to_vec)?,
            ),
            (b"langs", user.langs.clone()),
        ])
    }

    fn decode<'a>(columns: Columns<'a>) -> Result<UserRef<'a>, DecodeError> {
        Ok(UserRef {
            name: columns.decode::<Utf8>(b"name")?,
            born: columns.decode::<BigEndian<u16>>(b"born")?,
            langs: columns.get(b"langs").unwrap_or_default(),
        })
    }
}

fn users() -> Vec<(u32, User)> {
    (0..20u32)
        .map(|i| {
            let user = User {
                name: format!("user {i} {}", "x".repeat(i as usize * 7)),
                born: 1800 + i as u16,
                langs: (0..i as u8).collect(),
            };
            (i * 3, user)
        })
        .collect()
}

#[test]
fn typed_entities_read_back_field_for_field_in_place_and_in_key_order() {
    for stage in STAGES {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&create_options(), dir.path()).unwrap();
        let cf = db.create_cf("users", &create_options()).unwrap();
        let table: EntityTable<BigEndian<u32>, Users> = EntityTable::new(cf);
        for (id, user) in users() {
            table.put(&id, &user).unwrap();
        }
        settle(&[table.column_family()], stage);
        for (id, user) in users() {
            assert_eq!(
                table.get(&id, |u| u.to_owned()).unwrap(),
                Some(user.clone()),
                "{stage:?}"
            );
            // The name is the pinned column itself, not a copy.
            let same = table
                .column_family()
                .reader()
                .get_entity(&id.to_be_bytes(), |columns| {
                    let pinned = columns.get(b"name").unwrap().as_ptr();
                    table
                        .get(&id, |u| u.name.as_ptr() == pinned || stage_copies(stage))
                        .unwrap()
                })
                .unwrap();
            assert_eq!(
                same,
                Some(Some(true)),
                "{stage:?}: the name is borrowed, not copied"
            );
        }
        assert_eq!(table.get(&1, |u| u.born).unwrap(), None);
        let scanned: Vec<(u32, User)> = table
            .scan(|id, u| (id, u.to_owned()))
            .collect::<pinrocks::Result<_>>()
            .unwrap();
        assert_eq!(scanned, users(), "{stage:?}");
        table.delete(&3).unwrap();
        assert_eq!(table.get(&3, |u| u.born).unwrap(), None);
    }
}

/// Two reads of a memtable entity get two copies (RocksDB copies out of the memtable); from
/// a cached block both point into the block.
fn stage_copies(stage: crate::common::Stage) -> bool {
    matches!(stage, crate::common::Stage::Memtable)
}

#[test]
fn typed_entities_through_a_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&create_options(), dir.path(), []).unwrap();
    let table: EntityTable<BigEndian<u32>, Users> = EntityTable::new(db.default_cf());
    let (id, user) = users().pop().unwrap();
    let mut txn = db.begin().unwrap();
    table.put_with(txn.writer(), &id, &user).unwrap();
    assert_eq!(
        table.get_with(txn.reader(), &id, |u| u.born).unwrap(),
        Some(user.born)
    );
    assert_eq!(table.get(&id, |u| u.born).unwrap(), None); // not committed yet
    txn.commit().unwrap();
    assert_eq!(table.get(&id, |u| u.to_owned()).unwrap(), Some(user));
}

#[test]
fn a_missing_or_undecodable_column_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let table: EntityTable<BigEndian<u32>, Users> = EntityTable::new(db.default_cf());
    // A plain value: one default column, no "name".
    db.put(&7u32.to_be_bytes(), b"plain").unwrap();
    match table.get(&7, |u| u.born) {
        Err(Error::Decode {
            codec: "Users",
            key,
            source: DecodeError::MissingColumn(name),
        }) => assert_eq!((key, name.as_str()), (7u32.to_be_bytes().to_vec(), "name")),
        other => panic!("{other:?}"),
    }
    // A born column of the wrong width.
    db.writer()
        .put_entity(
            &8u32.to_be_bytes(),
            &[("name", &b"Ada"[..]), ("born", &b"\x07"[..])],
        )
        .unwrap();
    assert!(matches!(
        table.get(&8, |u| u.born),
        Err(Error::Decode {
            source: DecodeError::Length {
                expected: 2,
                actual: 1
            },
            ..
        })
    ));
    // A scan stops at the first entry it cannot decode, with its error.
    let scanned: Vec<_> = table.scan(|id, _| id).collect();
    assert_eq!(scanned.len(), 1);
    assert!(matches!(scanned[0], Err(Error::Decode { .. })));
}

#[test]
fn a_scan_of_a_ttl_database_says_it_keeps_no_entities() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = std::time::Duration::from_secs(3600);
    let db = Db::open_with_ttl(&create_options(), dir.path(), ttl).unwrap();
    db.put(&1u32.to_be_bytes(), b"plain").unwrap();
    let table: EntityTable<BigEndian<u32>, Users> = EntityTable::new(db.default_cf());
    assert!(matches!(
        table.get(&1, |u| u.born),
        Err(Error::InvalidInput { .. })
    ));
    let scanned: Vec<_> = table.scan(|id, _| id).collect();
    assert_eq!(scanned.len(), 1, "{scanned:?}");
    assert!(matches!(scanned[0], Err(Error::InvalidInput { .. })));
}
