//! The sweep's command line (`benches/sweep/cli.rs`): clap's own consistency checks, each
//! section's arguments, the flags that conflict or do not parse, a wrong regime refused with the known ones,
//! and a setting taken from its environment variable when no flag names it.

#[path = "../benches/sweep/config.rs"]
#[allow(dead_code)] // the file readers serve the sweep; the command line checks regimes
mod config;

#[path = "../benches/sweep/cli.rs"]
#[allow(dead_code)] // install and settings serve the sweep, not this test
mod cli;

use clap::{CommandFactory, Parser};
use cli::{Cli, Command};

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("sweep").chain(args.iter().copied()))
}

#[test]
fn the_command_line_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn sections_take_their_arguments_and_the_settings_anywhere() {
    let cli = parse(&["scale", "out", "--long", "--options", "max_open_files=-1"]).unwrap();
    let Some(Command::Scale { out, quick, long }) = cli.command else {
        panic!("not scale")
    };
    assert_eq!((out.to_str(), quick, long), (Some("out"), false, true));
    assert_eq!(cli.settings.options.as_deref(), Some("max_open_files=-1"));

    let cli = parse(&["--sizes", "8,4096", "run", "dir", "--quick"]).unwrap();
    assert!(matches!(
        cli.command,
        Some(Command::Run { quick: true, .. })
    ));
    assert_eq!(cli.settings.sizes, [8, 4096]);
    let spaced = parse(&["tiers", "--sizes", "8, 4096"]).unwrap();
    assert_eq!(spaced.settings.sizes, [8, 4096]);
    // A sizes file and sizes together: the file wins (`sizes()` in main.rs).
    assert!(parse(&["run", "d", "--sizes", "8", "--sizes-file", "f"]).is_ok());
    // No section: criterion's run, as `cargo test --benches` starts the binary.
    assert!(parse(&[]).unwrap().command.is_none());

    let cli = parse(&["per-read", "pinned", "4096", "1000"]).unwrap();
    let Some(Command::PerRead { name, size, reads }) = cli.command else {
        panic!("not per-read")
    };
    assert_eq!((name.as_str(), size, reads), ("pinned", 4096, 1000));

    let cli = parse(&["typed", "records", "--quick"]).unwrap();
    let Some(Command::Typed { out, quick }) = cli.command else {
        panic!("not typed")
    };
    assert_eq!((out.to_str(), quick), (Some("records"), true));
    assert!(matches!(
        parse(&["typed-paths"]).unwrap().command,
        Some(Command::TypedPaths)
    ));

    let cli = parse(&["writes", "w", "--quick"]).unwrap();
    let Some(Command::Writes { out, quick }) = cli.command else {
        panic!("not writes")
    };
    assert_eq!((out.to_str(), quick), (Some("w"), true));
    let cli = parse(&["--threads", "1,4", "concurrent-writes", "cw"]).unwrap();
    let Some(Command::ConcurrentWrites { out, quick }) = cli.command else {
        panic!("not concurrent-writes")
    };
    assert_eq!((out.to_str(), quick), (Some("cw"), false));
    assert_eq!(cli.settings.threads, [1, 4]);
    assert!(matches!(
        parse(&["write-paths"]).unwrap().command,
        Some(Command::WritePaths)
    ));
    let cli = parse(&["concurrent", "many", "--threads", "1,2,8,16"]).unwrap();
    let Some(Command::Concurrent { out, quick }) = cli.command else {
        panic!("not concurrent")
    };
    assert_eq!((out.to_str(), quick), (Some("many"), false));
    assert_eq!(cli.settings.threads, [1, 2, 8, 16]);
    // The regime of `run` takes the same flag.
    let cli = parse(&["--threads", "4", "run", "d", "--regimes", "concurrent"]).unwrap();
    assert_eq!(cli.settings.threads, [4]);
}

/// The error clap gives for `args`.
fn refused(args: &[&str]) -> clap::Error {
    parse(args).err().expect("refused")
}

#[test]
fn conflicting_and_wrong_arguments_are_refused() {
    use clap::error::ErrorKind::*;
    let kind = |args: &[&str]| refused(args).kind();
    assert_eq!(
        kind(&["scale", "out", "--quick", "--long"]),
        ArgumentConflict
    );
    assert_eq!(kind(&["run", "d", "--sizes", "8,x"]), ValueValidation);
    assert_eq!(kind(&["merge-per-read", "theirs", "1", "10"]), InvalidValue);
    assert_eq!(kind(&["run"]), MissingRequiredArgument);
    assert_eq!(
        kind(&["concurrent", "d", "--threads", "0"]),
        ValueValidation
    );
    assert_eq!(
        kind(&["concurrent", "d", "--threads", "2,x"]),
        ValueValidation
    );
    let regime = refused(&["run", "d", "--regimes", "block_cache,disk"]);
    assert_eq!(regime.kind(), ValueValidation);
    let message = regime.to_string();
    assert!(message.contains("unknown regime \"disk\""), "{message}");
}

#[test]
fn a_setting_comes_from_its_environment_variable_unless_a_flag_names_it() {
    // The only test of this binary that touches the environment.
    std::env::set_var("PINROCKS_REGIMES", "memtable,concurrent");
    let from_env = parse(&["txn"]).unwrap();
    let from_flag = parse(&["txn", "--regimes", "page_cache"]).unwrap();
    std::env::remove_var("PINROCKS_REGIMES");
    assert_eq!(
        from_env.settings.regimes.as_deref(),
        Some("memtable,concurrent")
    );
    assert_eq!(from_flag.settings.regimes.as_deref(), Some("page_cache"));
    assert_eq!(parse(&["txn"]).unwrap().settings.regimes, None);
}
