//! Callgrind's client requests, so that a count covers the counted reads alone: the costs
//! are zeroed before them and dumped after them, call counts included (the allocator's
//! calls are the allocations). Outside valgrind each request is a no-op: the magic
//! sequence rotates a register by 128 bits in all and exchanges a register with itself.
//! The sequence and the request numbers are valgrind.h's and callgrind.h's (x86-64 only;
//! elsewhere nothing is requested and `scripts/setup.sh` says the counts are missing).

/// `VG_USERREQ_TOOL_BASE('C', 'T')`: callgrind's first request, `DUMP_STATS`.
const DUMP_STATS: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
/// The next one: `ZERO_STATS`.
const ZERO_STATS: usize = DUMP_STATS + 1;

/// `read(0)`, a warm-up, then `read(1..=reads)` between the zeroing and the dumping of
/// callgrind's costs: the instructions and the allocator calls of the reads alone, in one
/// run (`scripts/setup.sh`'s `per_read_count`). Returns the sum of what the reads return.
pub fn counted(reads: usize, mut read: impl FnMut(usize) -> u64) -> u64 {
    let warm = read(0);
    warm + counted_reads(reads, &mut read)
}

/// The reads callgrind counts (not inlined, so that a profile shows them as one function).
#[inline(never)]
fn counted_reads<F: FnMut(usize) -> u64>(reads: usize, read: &mut F) -> u64 {
    zero_stats();
    let total = (1..=reads).map(read).sum();
    dump_stats();
    total
}

/// Zeroes every cost callgrind has collected so far (no-op outside valgrind).
fn zero_stats() {
    request(ZERO_STATS);
}

/// Writes the costs since the last zero to a numbered dump file (`<out file>.1`) and zeroes
/// them (no-op outside valgrind).
fn dump_stats() {
    request(DUMP_STATS);
}

#[cfg(target_arch = "x86_64")]
fn request(code: usize) {
    // Request, then five arguments (unused by these two).
    let args: [usize; 6] = [code, 0, 0, 0, 0, 0];
    let mut result: usize = 0;
    // SAFETY: outside valgrind the four rotations of rdi add up to 128 bits (rdi unchanged)
    // and `xchg rbx, rbx` changes nothing, so the block only reads `args` and leaves rdx
    // (the result, default 0) as it was; under valgrind the sequence is the documented
    // client request, which reads the six words at rax and writes rdx alone.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            options(nostack),
        );
    }
    std::hint::black_box(result);
}

#[cfg(not(target_arch = "x86_64"))]
fn request(_code: usize) {}
