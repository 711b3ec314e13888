use baton_feel::{Env, Expression};
fn main() {
    let env = Env::default();
    let src = std::env::args()
        .nth(1)
        .unwrap_or("count(for x in 0..1000000 return \"Hi there\")".into());
    let e = Expression::parse(&src).unwrap();
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let v = e.evaluate(&(), &env);
        println!("{:?} -> {}", t.elapsed(), v.value());
    }
}
