//! The `baton` command line.
fn main() {
    eprintln!("baton: no commands yet");
    std::process::exit(2);
}
