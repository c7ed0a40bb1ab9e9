//! Archived values through rkyv: every alignment a pinned value (or entity column) can
//! have reads the same value (in place, or on a counted aligned copy under rkyv's aligned
//! format), a read that returns the archive names a misalignment instead, corrupted bytes
//! are decode errors (and never reach a stored value, read without validating again), and
//! plain rkyv code and the `rocksdb` crate write and read the same bytes.
#![cfg(feature = "rkyv")]

use std::sync::{Mutex, MutexGuard};

use crate::common::{flips_read_alike, open_db, settle, Stage, STAGES};
use pinrocks::codec::{realigned_copies, BigEndian, Codec, DecodeError, Rkyv, Stored};
use pinrocks::{Error, Table};
use rkyv::{Archive, Deserialize, Serialize};

#[derive(Archive, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Account {
    id: u64,
    owner: String,
    balances: Vec<i64>,
    note: Option<String>,
}

type Accounts<'db> = Table<'db, BigEndian<u64>, Rkyv<Account>>;

/// The copy counter is process-wide: every test here that reads archives (and may copy
/// one, which counts) takes its turn, so that a test counting copies counts its own.
static COUNTED: Mutex<()> = Mutex::new(());

/// This test's turn at the copy counter (a failed test before it does not fail it).
pub(crate) fn turn() -> MutexGuard<'static, ()> {
    COUNTED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn account(id: u64) -> Account {
    Account {
        id,
        owner: "o".repeat(id as usize % 23 + 1),
        balances: (0..id as i64 % 7).map(|i| i * 1_000 - id as i64).collect(),
        note: id.is_multiple_of(3).then(|| format!("note {id}")),
    }
}

/// What a reader checks of an archived account, field by field.
fn matches(archived: &ArchivedAccount, expected: &Account) -> bool {
    archived.id == expected.id
        && archived.owner == expected.owner
        && archived
            .balances
            .iter()
            .map(|b| b.to_native())
            .eq(expected.balances.iter().copied())
        && archived.note.as_ref().map(|n| n.as_str()) == expected.note.as_deref()
}

#[test]
fn every_alignment_of_the_same_bytes_reads_the_same_value() {
    let _turn = turn();
    let value = account(29);
    let encoded = Rkyv::<Account>::with_encoded(&value, <[u8]>::to_vec).unwrap();
    let mut buffer = rkyv::util::AlignedVec::<16>::new();
    buffer.extend_from_slice(&[0xAA; 16]);
    buffer.extend_from_slice(&encoded);
    buffer.extend_from_slice(&[0xAA; 16]);
    for offset in 0..16 {
        let shifted = &mut buffer[offset..offset + encoded.len()];
        shifted.copy_from_slice(&encoded);
        let shifted = &buffer[offset..offset + encoded.len()];
        let before = realigned_copies();
        let read = Rkyv::<Account>::with_decoded(shifted, |a| matches(a, &value)).unwrap();
        assert!(read, "offset {offset}");
        let copied = realigned_copies() - before;
        match Rkyv::<Account>::decode(shifted) {
            Ok(a) => {
                assert!(matches(a, &value));
                assert_eq!(copied, 0, "read in place at offset {offset}, not copied");
            }
            Err(DecodeError::Alignment { align, address }) => {
                if cfg!(feature = "rkyv-unaligned") {
                    panic!("offset {offset}: the unaligned format reads anywhere");
                }
                assert_eq!((align, address), (16, shifted.as_ptr() as usize));
                assert_ne!(offset, 0);
                assert_eq!(copied, 1, "offset {offset}: one counted copy");
            }
            Err(other) => panic!("offset {offset}: {other}"),
        }
        assert_eq!(Rkyv::<Account>::decode_owned(shifted), Ok(value.clone()));
    }
    buffer[16..16 + encoded.len()].copy_from_slice(&encoded);
    let at_16 = &buffer[16..16 + encoded.len()];
    assert!(
        Rkyv::<Account>::decode(at_16).is_ok(),
        "an archive aligned as rkyv writes it"
    );
}

#[test]
fn pinned_values_read_at_every_stage_and_the_copies_are_counted() {
    let _turn = turn();
    for stage in STAGES {
        let (_dir, db) = open_db(&[]);
        let accounts: Accounts<'_> = Table::new(db.default_cf());
        for id in 0..200 {
            accounts.put(&id, &account(id)).unwrap();
        }
        settle(&[&db.default_cf()], stage);
        let mut by_residue = [0usize; 16];
        let mut misaligned_in_place = 0;
        for id in 0..200u64 {
            let (address, in_place) = db
                .get_pinned(&id.to_be_bytes(), |b| {
                    (b.as_ptr() as usize, Rkyv::<Account>::decode(b).is_ok())
                })
                .unwrap()
                .unwrap();
            by_residue[address % 16] += 1;
            misaligned_in_place += usize::from(!in_place);
            let before = realigned_copies();
            let read = accounts.get(&id, |a| matches(a, &account(id))).unwrap();
            assert_eq!(read, Some(true), "{stage:?} {id}");
            assert_eq!(
                realigned_copies() - before,
                u64::from(!in_place),
                "{stage:?} {id}"
            );
            assert_eq!(accounts.get_owned(&id).unwrap(), Some(account(id)));
        }
        if cfg!(feature = "rkyv-unaligned") {
            assert_eq!(misaligned_in_place, 0);
        }
        // The measurement the docs quote: `--nocapture` prints it.
        eprintln!(
            "rkyv alignment {stage:?}: pinned addresses mod 16 {by_residue:?}, \
             {misaligned_in_place} of 200 not readable in place"
        );
    }
}

#[test]
fn a_cursor_entry_names_the_misalignment_and_scans_and_multi_gets_read_through_it() {
    let _turn = turn();
    let (_dir, db) = open_db(&[]);
    let accounts: Accounts<'_> = Table::new(db.default_cf());
    for id in 0..64 {
        accounts.put(&id, &account(id)).unwrap();
    }
    db.default_cf().flush().unwrap();
    let mut batch = Vec::new();
    let keys: Vec<u64> = (0..64).rev().collect();
    accounts
        .multi_get(&keys, |i, a| {
            batch.push(a.is_some_and(|a| matches(a, &account(keys[i]))))
        })
        .unwrap();
    assert_eq!(batch, vec![true; 64], "a multi-get reads on the copies too");
    let scanned: Vec<bool> = accounts
        .scan(.., |id, a| matches(a, &account(id)))
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(scanned, vec![true; 64]);
    let mut cursor = accounts.iter();
    cursor.seek_to_first();
    let mut misaligned = 0;
    while let Some(entry) = cursor.entry() {
        match entry {
            Ok((id, a)) => assert!(matches(a, &account(id))),
            Err(Error::Decode {
                codec: "Rkyv",
                source: DecodeError::Alignment { align: 16, .. },
                ..
            }) => misaligned += 1,
            Err(other) => panic!("{other}"),
        }
        cursor.next();
    }
    if cfg!(feature = "rkyv-unaligned") {
        assert_eq!(misaligned, 0);
    }
}

#[test]
fn a_stored_archive_is_aligned_once_and_crosses_threads() {
    let _turn = turn();
    let (_dir, db) = open_db(&[]);
    let accounts: Accounts<'_> = Table::new(db.default_cf());
    for id in 0..32 {
        accounts.put(&id, &account(id)).unwrap();
    }
    db.default_cf().flush().unwrap();
    let stored: Vec<Stored<Rkyv<Account>>> = (0..32)
        .map(|id| accounts.get_stored(&id).unwrap().unwrap())
        .collect();
    drop(accounts);
    drop(db);
    let read = std::thread::spawn(move || {
        stored
            .iter()
            .enumerate()
            .all(|(id, s)| matches(s.get(), &account(id as u64)))
    });
    assert!(read.join().unwrap());
}

/// Every field of an archived account, as plain values.
fn fields(a: &ArchivedAccount) -> (u64, String, Vec<i64>, Option<String>) {
    let balances = a.balances.iter().map(|b| b.to_native()).collect();
    let note = a.note.as_ref().map(|n| n.to_string());
    (a.id.to_native(), a.owner.to_string(), balances, note)
}

#[test]
fn a_stored_archive_is_validated_once_when_made_and_corrupted_ones_never_are() {
    let _turn = turn();
    // `Stored::get` reads without validating again: only bytes `Stored::new` validated
    // may get there. Every flip of every byte, the bytes where they lie and one byte off
    // (kept as a copy, under rkyv's aligned format): `new` accepts exactly what a read
    // accepts, and `get` then reads what a validated read reads.
    let good = Rkyv::<Account>::with_encoded(&account(9), <[u8]>::to_vec).unwrap();
    flips_read_alike(
        &good,
        &[0, 1],
        |b| Rkyv::<Account>::with_decoded(b, fields),
        |b| Stored::<Rkyv<Account>>::new(b).map(|s| fields(s.get())),
    );
    let short = bytes::Bytes::copy_from_slice(&good[..good.len() - 1]);
    assert!(Stored::<Rkyv<Account>>::new(short).is_err());
}

#[test]
fn an_archive_in_an_entity_column_reads_wherever_the_column_lies() {
    let _turn = turn();
    // Columns of 0 to 15 bytes before the archive's put its bytes at every residue in the
    // entity's block: `Columns::decode` reads those where they are aligned and names the
    // others' misalignment; `with_decoded` reads every one, on a copy where needed.
    let (_dir, db) = open_db(&[]);
    let archive = Rkyv::<Account>::with_encoded(&account(6), <[u8]>::to_vec).unwrap();
    for pad in 0..16u8 {
        let filler = vec![b'x'; usize::from(pad)];
        let columns = [(&b"a"[..], &filler[..]), (&b"account"[..], &archive[..])];
        db.writer().put_entity(&[pad], &columns).unwrap();
    }
    db.default_cf().flush().unwrap();
    let (mut in_place, mut misaligned, mut eight_aligned) = (0, 0, 0);
    for pad in 0..16u8 {
        db.reader()
            .get_entity(&[pad], |columns| {
                let read = columns.with_decoded::<Rkyv<Account>, _>(b"account", fields);
                assert_eq!(read.unwrap(), fields_of(&account(6)));
                let address = columns.get(b"account").unwrap().as_ptr() as usize;
                eight_aligned += usize::from(address.is_multiple_of(8));
                match columns.decode::<Rkyv<Account>>(b"account") {
                    Ok(a) => {
                        assert_eq!(fields(a), fields_of(&account(6)));
                        in_place += 1;
                    }
                    Err(DecodeError::Alignment {
                        align: 16,
                        address: at,
                    }) if !cfg!(feature = "rkyv-unaligned") => {
                        assert_eq!((at, address.is_multiple_of(16)), (address, false));
                        misaligned += 1;
                    }
                    Err(other) => panic!("pad {pad}: {other}"),
                }
            })
            .unwrap()
            .expect("present");
    }
    // Under the aligned format an archive whose parts need at most 8-byte alignment reads
    // in place exactly at the addresses that give it; under `unaligned`, at every address.
    if cfg!(feature = "rkyv-unaligned") {
        assert_eq!((in_place, misaligned), (16, 0));
    } else {
        assert_eq!((in_place, misaligned), (eight_aligned, 16 - eight_aligned));
        assert!(misaligned > 0, "some column lies misaligned in the block");
    }
    assert!(matches!(
        db.reader().get_entity(&[0], |c| c.with_decoded::<Rkyv<Account>, _>(b"nope", |_| ())),
        Ok(Some(Err(DecodeError::MissingColumn(name)))) if name == "nope"
    ));
}

/// [`fields`] of an account not archived.
fn fields_of(a: &Account) -> (u64, String, Vec<i64>, Option<String>) {
    (a.id, a.owner.clone(), a.balances.clone(), a.note.clone())
}

#[test]
fn a_pinned_archive_reads_in_place_or_names_its_misalignment() {
    let _turn = turn();
    for stage in STAGES {
        let (_dir, db) = open_db(&[]);
        let accounts: Accounts<'_> = Table::new(db.default_cf());
        for id in 0..32 {
            accounts.put(&id, &account(id)).unwrap();
        }
        settle(&[&db.default_cf()], stage);
        let mut misaligned = 0;
        for id in 0..32u64 {
            // Where the same pin decodes in place, the guard reads it; elsewhere it names
            // the misalignment (it holds no copy to read it on).
            let in_place = db
                .get_pinned(&id.to_be_bytes(), |b| Rkyv::<Account>::decode(b).is_ok())
                .unwrap()
                .unwrap();
            match accounts.pin(&id) {
                Ok(Some(pinned)) => {
                    assert!(in_place, "{stage:?} {id}");
                    assert!(matches(pinned.get(), &account(id)));
                    assert_eq!(fields(pinned.get()), fields_of(&account(id)));
                }
                Err(Error::Decode {
                    codec: "Rkyv",
                    source: DecodeError::Alignment { align: 16, .. },
                    ..
                }) => {
                    assert!(!in_place, "{stage:?} {id}");
                    misaligned += 1;
                }
                other => panic!("{stage:?} {id}: {other:?}"),
            }
        }
        // A memtable hit is RocksDB's 16-aligned copy; a block's values lie anywhere.
        let in_blocks = !matches!(stage, Stage::Memtable) && !cfg!(feature = "rkyv-unaligned");
        assert_eq!(misaligned > 0, in_blocks, "{stage:?}: {misaligned} of 32");
    }
}

#[test]
fn corrupted_archives_are_decode_errors() {
    let _turn = turn();
    let (_dir, db) = open_db(&[]);
    let accounts: Accounts<'_> = Table::new(db.default_cf());
    let good = Rkyv::<Account>::with_encoded(&account(12), <[u8]>::to_vec).unwrap();
    let mut seen_errors = 0;
    for i in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut bad = good.clone();
            bad[i] ^= flip;
            db.put(b"\x00\x00\x00\x00\x00\x00\x00\x01", &bad).unwrap();
            // Either a value (a flipped byte inside a balance or a name) or an error:
            // never a panic or a read out of bounds (run under memcheck by the scripts).
            match accounts.get(&1, |a| a.owner.len() + a.balances.len()) {
                Ok(Some(_)) => {}
                Err(Error::Decode {
                    codec: "Rkyv",
                    source: DecodeError::Other(_),
                    ..
                }) => seen_errors += 1,
                other => panic!("byte {i} ^ {flip:#x}: {other:?}"),
            }
        }
    }
    // bytecheck refuses a share of the flips (pointers, lengths, UTF-8); the others land in
    // numbers or letters and read as other values.
    let flips = 3 * good.len();
    assert!(
        0 < seen_errors && seen_errors < flips,
        "{seen_errors} of {flips}"
    );
    db.put(b"\x00\x00\x00\x00\x00\x00\x00\x02", &good[..good.len() - 1])
        .unwrap();
    assert!(matches!(
        accounts.get(&2, |_| ()),
        Err(Error::Decode { codec: "Rkyv", .. })
    ));
}

#[test]
fn archives_written_by_plain_rkyv_into_the_rocksdb_crate_read_back_and_back() {
    let _turn = turn();
    let dir = tempfile::tempdir().unwrap();
    let mut peer_options = rocksdb::Options::default();
    peer_options.create_if_missing(true);
    {
        let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
        let theirs = rkyv::to_bytes::<rkyv::rancor::Error>(&account(5)).unwrap();
        peer.put(5u64.to_be_bytes(), theirs.as_slice()).unwrap();
    }
    {
        let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
        let accounts: Accounts<'_> = Table::new(db.default_cf());
        assert_eq!(
            accounts.get(&5, |a| matches(a, &account(5))).unwrap(),
            Some(true)
        );
        accounts.put(&6, &account(6)).unwrap();
    }
    let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
    let bytes = peer.get(6u64.to_be_bytes()).unwrap().unwrap();
    let expected = rkyv::to_bytes::<rkyv::rancor::Error>(&account(6)).unwrap();
    assert_eq!(bytes, expected.as_slice(), "byte for byte");
    let mut aligned = rkyv::util::AlignedVec::<16>::new();
    aligned.extend_from_slice(&bytes);
    let back = rkyv::from_bytes::<Account, rkyv::rancor::Error>(&aligned).unwrap();
    assert_eq!(back, account(6));
}

#[test]
fn a_fold_merge_and_a_typed_filter_read_archives_wherever_they_are_pinned() {
    let _turn = turn();
    use pinrocks::callbacks::{CompactionFilterFactory, MergeOperator, TypedDecision};

    let dir = tempfile::tempdir().unwrap();
    let mut options = pinrocks::Options::new();
    options.create_if_missing(true);
    options.merge_operator(&MergeOperator::fold::<Rkyv<u64>>("sum", |sum, x| {
        sum + x.to_native()
    }));
    let odd = CompactionFilterFactory::typed::<BigEndian<u64>, Rkyv<Account>>("odd", |id, a| {
        if id % 2 == 1 && a.id == id {
            TypedDecision::Remove
        } else {
            TypedDecision::Keep
        }
    });
    options.compaction_filter(&odd);
    let db = pinrocks::Db::open(&options, dir.path()).unwrap();
    let sums: Table<'_, BigEndian<u64>, Rkyv<u64>> = Table::new(db.default_cf());
    let accounts: Accounts<'_> = Table::new(db.default_cf());
    // Sums under keys 1000.., each operand in a file of its own, read from SST blocks.
    for round in 1..=4u64 {
        for key in 1000..1008u64 {
            sums.merge(&key, &(round * key)).unwrap();
        }
        db.flush().unwrap();
    }
    for key in 1000..1008u64 {
        assert_eq!(
            sums.get(&key, |s| s.to_native()).unwrap(),
            Some(10 * key),
            "{key}"
        );
    }
    for id in 0..16 {
        accounts.put(&id, &account(id)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let left: Vec<u64> = accounts
        .scan(..&100, |id, _| id)
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(
        left,
        (0..16).step_by(2).collect::<Vec<u64>>(),
        "odd ids filtered"
    );
    for key in 1000..1008u64 {
        let sum = sums.get(&key, |s| s.to_native()).unwrap();
        assert_eq!(sum, Some(10 * key), "{key} after the compaction's merge");
    }
}
