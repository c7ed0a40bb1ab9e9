//! Every typed decoder on arbitrary bytes, at every alignment: never a panic, never UB
//! (run under a sanitizer), and whatever decodes re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pinrocks::codec::{
    Array, BigEndian, Bool, Codec, EpochMillis, Json, LittleEndian, Raw, Utf8, ZeroCopy, F64,
};
use zerocopy::byteorder::{BigEndian as Be, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Record {
    id: U64<Be>,
    len: U32<Be>,
    tag: [u8; 3],
}

#[derive(serde::Serialize, serde::Deserialize)]
struct User {
    name: String,
    age: u32,
}

/// Decodes; if that works, the value must encode back to the very same bytes (for codecs
/// whose encoding is canonical).
fn round_trip<C: Codec>(bytes: &[u8], to_item: impl Fn(C::Decoded<'_>) -> Option<Vec<u8>>) {
    if let Ok(decoded) = C::decode(bytes) {
        if let Some(encoded) = to_item(decoded) {
            assert_eq!(encoded, bytes, "{} does not round-trip", C::NAME);
        }
    }
}

fn all(bytes: &[u8]) {
    round_trip::<Raw>(bytes, |v| Raw::with_encoded(v, <[u8]>::to_vec).ok());
    round_trip::<Utf8>(bytes, |v| Utf8::with_encoded(v, <[u8]>::to_vec).ok());
    round_trip::<Array<8>>(bytes, |v| Array::<8>::with_encoded(v, <[u8]>::to_vec).ok());
    round_trip::<BigEndian<u64>>(bytes, |v| {
        BigEndian::<u64>::with_encoded(&v, <[u8]>::to_vec).ok()
    });
    round_trip::<BigEndian<i32>>(bytes, |v| {
        BigEndian::<i32>::with_encoded(&v, <[u8]>::to_vec).ok()
    });
    round_trip::<LittleEndian<i128>>(bytes, |v| {
        LittleEndian::<i128>::with_encoded(&v, <[u8]>::to_vec).ok()
    });
    round_trip::<F64>(bytes, |v| F64::with_encoded(&v, <[u8]>::to_vec).ok());
    round_trip::<Bool>(bytes, |v| Bool::with_encoded(&v, <[u8]>::to_vec).ok());
    round_trip::<EpochMillis>(bytes, |v| {
        EpochMillis::with_encoded(&v, <[u8]>::to_vec).ok()
    });
    round_trip::<ZeroCopy<Record>>(bytes, |v| Some(v.as_bytes().to_vec()));
    let _ = Json::<User>::decode(bytes); // JSON is not canonical: decoding must just not panic
}

fuzz_target!(|data: &[u8]| {
    // The same bytes at every alignment, as pinned bytes in the block cache may be.
    let mut shifted = vec![0u8; data.len() + 8];
    for offset in 0..8 {
        shifted[offset..offset + data.len()].copy_from_slice(data);
        all(&shifted[offset..offset + data.len()]);
    }
});
