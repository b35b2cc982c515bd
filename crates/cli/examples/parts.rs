use signorini_collision::narrow::gjk::{GjkSettings, gjk};
use signorini_collision::narrow::minkowski::{MinkowskiPair, Posed};
use signorini_geometry::Shape;
use signorini_testdata::QueryDataset;
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let data: QueryDataset = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let recs = data.prepare().unwrap();
    let settings = GjkSettings::default();
    let mut tot = 0.0;
    let mut its = 0u32;
    let mut sink = 0.0;
    for r in &recs {
        let (Shape::Cylinder(c), Shape::Box(b)) = (&r.a.0, &r.b.0) else { panic!() };
        let pair = MinkowskiPair { a: Posed::new(c, &r.a.1), b: Posed::new(b, &r.b.1), inflate: false };
        let init = pair.a.center() - pair.b.center();
        let mut bestg = f64::MAX;
        for _ in 0..3000 {
            let t = Instant::now();
            let o = gjk(&pair, init, &settings);
            its = o.iterations;
            sink += o.distance + o.point_a.x;
            bestg = bestg.min(t.elapsed().as_nanos() as f64);
        }
        tot += bestg / its as f64;
    }
    println!("gjk per iteration {:.1} ns ({sink:.3e})", tot / recs.len() as f64);
}
