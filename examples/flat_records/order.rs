//! flatc's `Order` table (its code beside this file) and the codec's name for it, shared by
//! the example and `tests/reads/typed_flat.rs`.

#[allow(
    clippy::all,
    unused_imports,
    dead_code,
    non_snake_case,
    mismatched_lifetime_syntaxes
)]
#[path = "order_generated.rs"]
mod order_generated;

pub use order_generated::pinrocks_example::*;
use pinrocks::codec::FlatTable;

/// `Order<'static>` names flatc's table at every lifetime for the codec.
impl FlatTable for Order<'static> {
    type Of<'a> = Order<'a>;
    type Owned = OrderT;
    fn unpack(table: &Order<'_>) -> OrderT {
        table.unpack()
    }
}
