fn main() {
    std::process::exit(ox88::cli::run(std::env::args().collect()));
}
