//! The `baton` command line. The subcommands live in the `baton_cli` library.

fn main() -> std::process::ExitCode {
    baton_cli::main()
}
