//! What the writes section measures (`writes.rs`): each [`Kind`] of write, and the
//! [`Side`]s that write it (`write_ways.rs` makes each way).

use crate::tiers;

/// Writes per call of the C++ loop for single writes: the crossing into C++ amortized.
pub const LOOP_RUN: usize = 16;

/// What is written, each value of the run's size.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Put,
    Delete,
    Merge,
    /// `put_entity` of one column, the default one.
    Entity,
    /// A batch of this many records of one kind, written at once.
    Batch(Record, usize),
    /// An indexed batch (`WriteBatchWithIndex`) of this many puts, written at once.
    Indexed(usize),
    /// A transaction of `puts` puts and its commit.
    Txn {
        optimistic: bool,
        puts: usize,
    },
}

/// What each record of a batch is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Record {
    Put,
    Delete,
    Merge,
}

impl Record {
    /// As the tables name a batch of them (`Put`: the plain "batch of N").
    fn name(self) -> &'static str {
        match self {
            Record::Put => "",
            Record::Delete => " deletes",
            Record::Merge => " merges",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Record::Put => "",
            Record::Delete => "delete",
            Record::Merge => "merge",
        }
    }
}

/// The four sides, in the tables' order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Ours,
    Peer,
    Floor,
    Loop,
}

pub const SIDES: [Side; 4] = [Side::Ours, Side::Peer, Side::Floor, Side::Loop];

impl Side {
    /// As the tables name it.
    pub fn name(self) -> &'static str {
        match self {
            Side::Ours => "pinrocks",
            Side::Peer => "rocksdb crate",
            Side::Floor => "C API floor",
            Side::Loop => "C++ loop",
        }
    }

    pub fn path(self) -> &'static str {
        match self {
            Side::Ours => "ours",
            Side::Peer => "peer",
            Side::Floor => "floor",
            Side::Loop => "loop",
        }
    }
}

impl Kind {
    /// Every kind measured at `size` (a batch or transaction of at most 4 MiB, of at most
    /// `keys` keys).
    pub fn all(size: usize, keys: usize) -> Vec<Kind> {
        let mut kinds = vec![Kind::Put, Kind::Delete, Kind::Merge, Kind::Entity];
        let fits = |n: usize| n * size <= 4 << 20 && n <= keys;
        kinds.extend(
            [1, 8, 64, 1024]
                .into_iter()
                .filter(|&n| fits(n))
                .map(|n| Kind::Batch(Record::Put, n)),
        );
        // Deletes and merges take a batch's general record entry, not the put's own.
        for record in [Record::Delete, Record::Merge] {
            kinds.extend(
                [64].into_iter()
                    .filter(|&n| fits(n))
                    .map(|n| Kind::Batch(record, n)),
            );
        }
        kinds.extend([64].into_iter().filter(|&n| fits(n)).map(Kind::Indexed));
        for optimistic in [false, true] {
            kinds.extend(
                [1, 64]
                    .into_iter()
                    .filter(|&n| fits(n))
                    .map(|puts| Kind::Txn { optimistic, puts }),
            );
        }
        kinds
    }

    /// As the tables name it.
    pub fn name(self) -> String {
        match self {
            Kind::Put => "put".into(),
            Kind::Delete => "delete".into(),
            Kind::Merge => "merge".into(),
            Kind::Entity => "put_entity (1 column)".into(),
            Kind::Batch(record, n) => format!("batch of {n}{}", record.name()),
            Kind::Indexed(n) => format!("indexed batch of {n}"),
            Kind::Txn { optimistic, puts } => format!(
                "{} txn: {puts} put{} + commit",
                if optimistic {
                    "optimistic"
                } else {
                    "pessimistic"
                },
                if puts == 1 { "" } else { "s" }
            ),
        }
    }

    /// As `per-read` names it (`write_<path>_<side>`).
    pub fn path(self) -> String {
        match self {
            Kind::Put => "put".into(),
            Kind::Delete => "delete".into(),
            Kind::Merge => "merge".into(),
            Kind::Entity => "entity".into(),
            Kind::Batch(record, n) => format!("batch{}{n}", record.path()),
            Kind::Indexed(n) => format!("indexed{n}"),
            Kind::Txn { optimistic, puts } => {
                format!("{}{puts}", if optimistic { "occ" } else { "txn" })
            }
        }
    }

    /// Writes per call of pinrocks', the peer's and the floor's ways.
    pub fn ops(self) -> usize {
        match self {
            Kind::Put | Kind::Delete | Kind::Merge | Kind::Entity => 1,
            Kind::Batch(_, n) | Kind::Indexed(n) => n,
            Kind::Txn { puts, .. } => puts,
        }
    }

    /// Writes per call of `side`'s way.
    pub fn ops_of(self, side: Side) -> usize {
        match (side, self) {
            (Side::Loop, Kind::Put | Kind::Delete | Kind::Merge | Kind::Entity) => LOOP_RUN,
            _ => self.ops(),
        }
    }

    /// Whether `side` has a way for this kind: the `rocksdb` crate has no entities and no
    /// indexed batch; the C API no entity (its floor is the C++ call, once per crossing) and
    /// no transaction of a pinrocks database (pinrocks does not hand out the transaction
    /// database's handle); the C++ loop no indexed batch or transaction.
    pub fn has(self, side: Side) -> bool {
        match (self, side) {
            (_, Side::Ours) => true,
            (Kind::Entity | Kind::Indexed(_), Side::Peer) => false,
            (Kind::Txn { .. }, Side::Floor | Side::Loop) => false,
            (Kind::Indexed(_), Side::Loop) => false,
            _ => true,
        }
    }
}

/// Every `per-read` name of a write way, for the valgrind tables (`sweep write-paths`).
pub fn paths(size: usize) -> Vec<String> {
    Kind::all(size, tiers::key_count(size))
        .into_iter()
        .flat_map(|kind| {
            SIDES
                .into_iter()
                .filter(move |&side| kind.has(side))
                .map(move |side| format!("write_{}_{}", kind.path(), side.path()))
        })
        .collect()
}
