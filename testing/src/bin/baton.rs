//! The `baton` command line. The subcommands live in `baton_testing::cli`.

fn main() -> std::process::ExitCode {
    baton_testing::cli::main()
}
