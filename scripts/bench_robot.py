#!/usr/bin/env python3
"""Robot self-collision speed, side by side: Pinocchio + Coal (C++) against the `signorini robot` CLI.

For each robot (iiwa, Panda) and each collision geometry (convex hulls, triangle meshes), on the same configurations
(the `q` of a queries file in the layout of `../shared/robots/iiwa_queries.json`) and the same enabled pairs (the
file's `pair_names`, i.e. its SRDF), single threaded, mean time per configuration:

* fk: forward kinematics + geometry placements;
* check: fk + self-collision check that stops at the first colliding pair (`computeCollisions(..., true)`);
* distances: fk + every enabled pair's answer (hull: signed distance, GJK/EPA; mesh: `collide`, then `distance`
  when the meshes do not intersect);
* gradients: distances + d distance / d q of every pair with witness points (`computeJointJacobians` and
  `n . (J(p2) - J(p1))`: Pinocchio has no distance-derivative routine, this is the cheap way its users take).

Coal's side is a small C++ program (embedded below) compiled with g++ against the headers and libraries of the
`pip install pin coal` wheels (their `cmeel.prefix`), so no Python call overhead is timed. It is built once into a
cache folder in the temp directory (about 30 s). Each figure is the median over R passes of the mean over the
configurations, after one untimed pass (caches, GJK warm starts), as the CLI does. With `--rounds K` the two sides run
alternately K times; each figure is then the side's best round, and the ratio column adds the median of the
rounds' ratios.

Ours: `signorini robot URDF --configs FILE --srdf SRDF --geometry hull|mesh --bench --repeat R`, which prints
`{"robot", "configs", "fk_ns", "check_ns", "distances_ns", "gradients_ns", ...}` (several lines are averaged).

ratio = Coal time / ours: above 1 means signorini is faster.

Usage: python3 scripts/bench_robot.py [--only iiwa panda] [--geometry hull mesh] [--repeat R] [--rounds K]
                                      [--signorini PATH] [--json OUT] [--no-ours]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "robots"
DEFAULT_BINARY = REPO / "target" / "release" / "signorini"

# name -> (URDF, SRDF, queries file)
ROBOTS = {
    "iiwa": (SHARED / "kuka_iiwa" / "model.urdf", SHARED / "iiwa.srdf", SHARED / "iiwa_queries.json"),
    "panda": (SHARED / "franka_panda" / "panda.urdf", REPO / "crates" / "testdata" / "robots" / "panda.srdf",
              REPO / "crates" / "testdata" / "robots" / "panda_queries.json"),
}
TASKS = ("fk", "check", "distances", "gradients")

CPP_SOURCE = r"""
// Pinocchio + Coal side of scripts/bench_robot.py (compiled by the script; not part of the build).
// Reads a spec file: "urdf PATH", "package_dir PATH"*, "lock NAME VALUE"*, "joints N NAME...", "pair G1 G2"*,
// "repeat R", "q V..."*. Prints one JSON line per geometry (hull, mesh): mean ns per configuration, median of R
// passes (after one untimed pass), each figure including forward kinematics and the geometry placements.
#include <pinocchio/algorithm/geometry.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/algorithm/model.hpp>
#include <pinocchio/collision/collision.hpp>
#include <pinocchio/collision/distance.hpp>
#include <pinocchio/geometry.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include <coal/BVH/BVH_model.h>
#include <coal/shape/geometric_shapes.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pin = pinocchio;
using Clock = std::chrono::steady_clock;

static volatile double sink = 0;  // keeps the results alive

template <class F>
double time_per_config(const std::vector<Eigen::VectorXd>& qs, int repeat, F&& op) {
  for (const auto& q : qs) op(q);  // untimed: caches, workspaces, GJK warm starts
  std::vector<double> passes;
  for (int r = 0; r < std::max(repeat, 1); ++r) {
    auto t0 = Clock::now();
    for (const auto& q : qs) op(q);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    passes.push_back(ns / double(qs.size()));
  }
  std::sort(passes.begin(), passes.end());
  return passes[passes.size() / 2];
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: bench_coal SPEC\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string line, urdf;
  std::vector<std::string> package_dirs, joint_names;
  std::vector<std::pair<std::string, double>> locks;
  std::vector<std::pair<std::string, std::string>> pair_names;
  std::vector<std::vector<double>> raw_qs;
  int repeat = 7;
  double tight_tol = 1e-10;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string key;
    ss >> key;
    if (key == "urdf") ss >> urdf;
    else if (key == "package_dir") { std::string d; ss >> d; package_dirs.push_back(d); }
    else if (key == "lock") { std::string n; double v; ss >> n >> v; locks.emplace_back(n, v); }
    else if (key == "joints") { int n; ss >> n; joint_names.resize(n); for (auto& s : joint_names) ss >> s; }
    else if (key == "pair") { std::string a, b; ss >> a >> b; pair_names.emplace_back(a, b); }
    else if (key == "repeat") ss >> repeat;
    else if (key == "tight_tol") ss >> tight_tol;
    else if (key == "q") { std::vector<double> v; double x; while (ss >> x) v.push_back(x); raw_qs.push_back(v); }
  }

  pin::Model full;
  pin::urdf::buildModel(urdf, full);
  pin::GeometryModel gfull;
  pin::urdf::buildGeom(full, urdf, pin::COLLISION, gfull, package_dirs);
  Eigen::VectorXd qref = pin::neutral(full);
  std::vector<pin::JointIndex> lock_ids;
  for (auto& [name, value] : locks) {
    if (!full.existJointName(name)) throw std::runtime_error("no joint " + name);
    auto id = full.getJointId(name);
    qref[full.joints[id].idx_q()] = value;
    lock_ids.push_back(id);
  }
  std::sort(lock_ids.begin(), lock_ids.end());
  pin::Model model;
  pin::GeometryModel mesh_model;
  pin::buildReducedModel(full, gfull, lock_ids, qref, model, mesh_model);
  pin::Data data(model);

  // q of the spec file in joint_names order -> the model's order
  std::vector<Eigen::VectorXd> qs;
  for (auto& v : raw_qs) {
    Eigen::VectorXd q = pin::neutral(model);
    if (v.size() != joint_names.size()) throw std::runtime_error("q size");
    for (size_t k = 0; k < v.size(); ++k) {
      if (!model.existJointName(joint_names[k])) throw std::runtime_error("no joint " + joint_names[k]);
      q[model.joints[model.getJointId(joint_names[k])].idx_q()] = v[k];
    }
    qs.push_back(q);
  }

  pin::GeometryModel hull_model = mesh_model;
  for (auto& go : hull_model.geometryObjects) {
    auto bvh = std::dynamic_pointer_cast<coal::BVHModelBase>(go.geometry);
    if (!bvh) throw std::runtime_error(go.name + " is not a mesh");
    auto pts = std::make_shared<std::vector<coal::Vec3s>>(*bvh->vertices);
    go.geometry.reset(coal::ConvexBase::convexHull(pts, bvh->num_vertices, true, nullptr));
  }
  for (auto* gm : {&mesh_model, &hull_model}) {
    for (auto& [a, b] : pair_names) {
      if (!gm->existGeometryName(a) || !gm->existGeometryName(b)) throw std::runtime_error("no geometry " + a + "/" + b);
      gm->addCollisionPair(pin::CollisionPair(gm->getGeometryId(a), gm->getGeometryId(b)));
    }
  }

  for (const char* which : {"hull", "mesh"}) {
    bool hull = std::string(which) == "hull";
    pin::GeometryModel& gm = hull ? hull_model : mesh_model;
    pin::GeometryData gd(gm), gd_tight(gm);
    for (auto& r : gd_tight.distanceRequests) { r.gjk_tolerance = tight_tol; r.epa_tolerance = tight_tol; }
    const size_t npairs = gm.collisionPairs.size();
    std::vector<double> dist(npairs);
    std::vector<char> coll(npairs);
    Eigen::MatrixXd grads(npairs, model.nv);
    pin::Data::Matrix6x J1(6, model.nv), J2(6, model.nv);

    // FK + geometry placements
    auto fk = [&](const Eigen::VectorXd& q) {
      pin::updateGeometryPlacements(model, data, gm, gd, q);
      sink = sink + gd.oMg.back().translation()[0];
    };
    // FK + self-collision check, stop at the first collision
    auto check = [&](const Eigen::VectorXd& q) {
      sink = sink + double(pin::computeCollisions(model, data, gm, gd, q, true));
    };
    // FK + every pair's answer: hull = signed distance (GJK/EPA); mesh = collide, then distance if apart
    auto distances = [&](const Eigen::VectorXd& q, pin::GeometryData& g) {
      pin::updateGeometryPlacements(model, data, gm, g, q);
      for (size_t k = 0; k < npairs; ++k) {
        if (hull) {
          dist[k] = pin::computeDistance(gm, g, k).min_distance;
          coll[k] = dist[k] < 0;
        } else {
          coll[k] = pin::computeCollision(gm, g, k);
          dist[k] = coll[k] ? 0.0 : pin::computeDistance(gm, g, k).min_distance;
        }
      }
      sink = sink + dist[0];
    };
    // the same + d distance / d q = n . (J_p2 - J_p1) for every pair with witness points
    auto gradients = [&](const Eigen::VectorXd& q, pin::GeometryData& g) {
      distances(q, g);
      pin::computeJointJacobians(model, data, q);
      for (size_t k = 0; k < npairs; ++k) {
        if (!hull && coll[k]) { grads.row(k).setZero(); continue; }
        const auto& res = g.distanceResults[k];
        const auto& cp = gm.collisionPairs[k];
        Eigen::Vector3d n = hull ? Eigen::Vector3d(res.normal)
                                 : Eigen::Vector3d((res.nearest_points[1] - res.nearest_points[0]) / res.min_distance);
        Eigen::RowVectorXd gk = Eigen::RowVectorXd::Zero(model.nv);
        for (int side = 0; side < 2; ++side) {
          auto jid = gm.geometryObjects[side == 0 ? cp.first : cp.second].parentJoint;
          if (jid == 0) continue;
          auto& J = side == 0 ? J1 : J2;
          J.setZero();
          pin::getJointJacobian(model, data, jid, pin::LOCAL_WORLD_ALIGNED, J);
          Eigen::Vector3d r = res.nearest_points[side] - data.oMi[jid].translation();
          // v(p) = v + w x r  =>  n . v(p) = n . v + (r x n) . w
          Eigen::RowVectorXd row = n.transpose() * J.topRows<3>() + r.cross(n).transpose() * J.bottomRows<3>();
          if (side == 0) gk -= row; else gk += row;
        }
        grads.row(k) = gk;
      }
      sink = sink + grads(0, 0);
    };

    double fk_ns = time_per_config(qs, repeat, fk);
    double check_ns = time_per_config(qs, repeat, check);
    double dist_ns = time_per_config(qs, repeat, [&](const Eigen::VectorXd& q) { distances(q, gd); });
    double dist_tight_ns = time_per_config(qs, repeat, [&](const Eigen::VectorXd& q) { distances(q, gd_tight); });
    double grad_ns = time_per_config(qs, repeat, [&](const Eigen::VectorXd& q) { gradients(q, gd); });
    int colliding = 0;
    for (auto& q : qs) colliding += pin::computeCollisions(model, data, gm, gd, q, true);
    // gradient sanity: central differences of the tight distances on the first configuration
    double fd_err = 0;
    if (!qs.empty()) {
      gradients(qs[0], gd_tight);
      Eigen::MatrixXd g0 = grads;
      std::vector<char> c0 = coll;
      for (int j = 0; j < model.nv; ++j) {
        Eigen::VectorXd qp = qs[0], qm = qs[0];
        qp[j] += 1e-6; qm[j] -= 1e-6;
        distances(qp, gd_tight);
        std::vector<double> dp = dist;
        distances(qm, gd_tight);
        for (size_t k = 0; k < npairs; ++k)
          if (hull || !c0[k]) fd_err = std::max(fd_err, std::abs((dp[k] - dist[k]) / 2e-6 - g0(k, j)));
      }
    }
    std::printf("{\"geometry\": \"%s\", \"configs\": %zu, \"pairs\": %zu, \"colliding_configs\": %d, "
                "\"fk_ns\": %.1f, \"check_ns\": %.1f, \"distances_ns\": %.1f, \"distances_tight_ns\": %.1f, "
                "\"gradients_ns\": %.1f, \"grad_fd_maxerr_config0\": %.3e}\n",
                which, qs.size(), npairs, colliding, fk_ns, check_ns, dist_ns, dist_tight_ns, grad_ns, fd_err);
  }
  return 0;
}
"""

# Compile definitions of the wheels' CMake targets (pinocchio::pinocchio_parsers, coal::coal).
CXX_DEFINES = [
    "NDEBUG", "PINOCCHIO_WITH_URDFDOM", "PINOCCHIO_URDFDOM_HEADERS_MAJOR_VERSION=3",
    "PINOCCHIO_URDFDOM_HEADERS_MINOR_VERSION=0", "PINOCCHIO_URDFDOM_HEADERS_PATCH_VERSION=0",
    "PINOCCHIO_WITH_COLLISION", "PINOCCHIO_WITH_HPP_FCL", "PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION",
    "BOOST_MPL_LIMIT_LIST_SIZE=30", "BOOST_MPL_LIMIT_VECTOR_SIZE=30", "BOOST_MPL_CFG_NO_PREPROCESSED_HEADERS",
    "BOOST_FUSION_INVOKE_MAX_ARITY=12", "COAL_HAS_OCTOMAP", "COAL_HAVE_OCTOMAP", "OCTOMAP_MAJOR_VERSION=1",
    "OCTOMAP_MINOR_VERSION=10", "OCTOMAP_PATCH_VERSION=0",
]
CXX_LIBS = ["pinocchio_parsers", "pinocchio_collision", "pinocchio_default", "coal", "urdfdom_model",
            "boost_filesystem", "boost_serialization", "octomap"]


def cmeel_prefix(package: str = "pinocchio") -> Path:
    """The `cmeel.prefix` folder of the pip wheels holding `include/<package>` (`pinocchio` or `coal`)."""
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        p = Path(base) / "cmeel.prefix"
        if (p / "include" / package).is_dir():
            return p
    try:
        module = __import__(package)  # only to locate the wheel
        for parent in Path(module.__file__).resolve().parents:
            if (parent / "cmeel.prefix" / "include" / package).is_dir():
                return parent / "cmeel.prefix"
    except ImportError:
        pass
    wheels = "pin coal" if package == "pinocchio" else package
    sys.exit(f"no {package} headers found (pip install {wheels}; the `cmeel.prefix` folder of the wheels holds them)")


def compile_cached(source: str, libs: list[str], prefix: Path, tag: str, cxx: str = "g++", opt: str = "-O3") -> Path:
    """Compile a C++ benchmark against the wheels' headers and libraries once per (source, flags, prefix) into a
    cache folder of the temp directory; return the binary. Also used by `bench_coal.py`."""
    needed = [("cmeel-eigen", "include/eigen3/Eigen/Core")]
    if any(lib.startswith("pinocchio") for lib in libs):
        needed.append(("cmeel-urdfdom-headers", "include/urdfdom_headers/urdf_model/model.h"))
    missing = [what for what, rel in needed if not (prefix / rel).exists()]
    if missing:
        sys.exit(f"{tag}: the pin/coal wheels ship no {' / '.join(missing)} headers; "
                 f"pip install {' '.join(missing)} (header-only, needed to compile against Pinocchio and Coal)")
    cmd = [cxx, "-std=c++17", opt, *(f"-D{d}" for d in CXX_DEFINES),
           *(f"-I{prefix / d}" for d in ("include", "include/eigen3", "include/urdfdom_headers", "include/urdfdom")),
           "SRC", "-o", "OUT", f"-L{prefix / 'lib'}", f"-Wl,-rpath,{prefix / 'lib'}", *(f"-l{l}" for l in libs)]
    key = hashlib.sha256((source + " ".join(cmd) + str(prefix)).encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"signorini-{tag}-{key}"
    exe = folder / "bench"
    if exe.exists():
        return exe
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "bench.cpp"
    src.write_text(source)
    cmd = [str(src) if c == "SRC" else str(exe) if c == "OUT" else c for c in cmd]
    print(f"compiling the C++ benchmark into {folder} (about 30 s) ...", file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        (folder / "compile.log").write_text(proc.stderr)
        errors = [l for l in proc.stderr.splitlines() if "error" in l][:5]
        sys.exit(f"{tag}: compiling the C++ benchmark failed:\n  " + "\n  ".join(errors)
                 + f"\n(full log: {folder / 'compile.log'}; command: {' '.join(cmd)})")
    return exe


def build_coal_bench(cxx: str, opt: str) -> Path:
    """The Pinocchio + Coal program of this script, compiled once (see `compile_cached`)."""
    return compile_cached(CPP_SOURCE, CXX_LIBS, cmeel_prefix(), "bench-robot", cxx, opt)


def run_coal(exe: Path, name: str, repeat: int, tmp: Path) -> dict:
    urdf, _, queries = ROBOTS[name]
    doc = json.loads(queries.read_text())
    lines = [f"urdf {urdf}", f"package_dir {urdf.parent}", f"repeat {repeat}",
             f"joints {len(doc['joint_names'])} {' '.join(doc['joint_names'])}"]
    lines += [f"lock {j} {v!r}" for j, v in doc.get("locked_joints", {}).items()]
    lines += [f"pair {a} {b}" for a, b in doc["pair_names"]]
    lines += ["q " + " ".join(repr(float(x)) for x in c["q"]) for c in doc["configs"]]
    spec = tmp / f"{name}.spec"
    spec.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([str(exe), str(spec)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench_robot.py: the Coal benchmark failed on {name}: {proc.stderr.strip()[:500]}")
    return {r["geometry"]: r for r in map(json.loads, proc.stdout.splitlines())}


def run_ours(binary: Path, name: str, geometry: str, repeat: int, timeout: float) -> dict:
    urdf, srdf, queries = ROBOTS[name]
    cmd = [str(binary), "robot", str(urdf), "--configs", str(queries), "--srdf", str(srdf), "--geometry", geometry,
           "--bench", "--repeat", str(repeat)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s", "cmd": cmd}
    if proc.returncode != 0:
        msg = (proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}").splitlines()[0]
        return {"error": msg, "cmd": cmd, "stderr": proc.stderr}
    rows = []
    for line in proc.stdout.splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and "check_ns" in row:
            rows.append(row)
    if not rows:
        return {"error": "no benchmark line (`{..., \"check_ns\": ...}`) in the output", "cmd": cmd,
                "stdout": proc.stdout[-2000:]}
    # one line (mean per configuration) or one line per configuration: average either way
    out = {k: sum(float(r.get(k) or 0.0) for r in rows) / len(rows) for k in ("fk_ns", "check_ns", "distances_ns",
                                                                            "gradients_ns")}
    out.update(cmd=cmd, lines=len(rows), raw=rows if len(rows) < 5 else rows[:1])
    return out


def best_of_rounds(rounds: list[dict]) -> dict:
    """Each side's fastest round per figure, and the median over rounds of the per-round ratio Coal / ours."""
    if len(rounds) == 1:
        return rounds[0]
    out = {}
    for key in rounds[0]:
        coals = [r[key]["coal"] for r in rounds]
        ours = [r[key]["ours"] for r in rounds]
        coal = dict(coals[0])
        for f in [f"{t}_ns" for t in TASKS] + ["distances_tight_ns"]:
            coal[f] = min(c[f] for c in coals)
        entry = {"coal": coal, "ours": ours[0], "rounds": len(rounds)}
        if ours[0] is not None and all(o is not None and "error" not in o for o in ours):
            best = dict(ours[0])
            for t in TASKS:
                best[f"{t}_ns"] = min(o[f"{t}_ns"] for o in ours)
            entry["ours"] = best
            entry["median_ratio"] = {t: statistics.median(c[f"{t}_ns"] / o[f"{t}_ns"] for c, o in zip(coals, ours))
                                     for t in TASKS}
        out[key] = entry
    return out


def us(ns) -> str:
    return "—" if ns is None else f"{ns / 1000:.2f}" if ns < 1e5 else f"{ns / 1000:.0f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(ROBOTS), help="robots (default: all)")
    ap.add_argument("--geometry", nargs="*", choices=("hull", "mesh"), default=["hull", "mesh"])
    ap.add_argument("--repeat", type=int, default=7, help="timed passes; the median is reported")
    ap.add_argument("--signorini", type=Path, default=DEFAULT_BINARY, help="our CLI")
    ap.add_argument("--no-ours", action="store_true", help="only time Pinocchio + Coal")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--opt", default="-O2", help="optimisation flag of the C++ build")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed per run of ours")
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate Coal's and our runs this many times and report each side's best round, with the "
                         "median of the rounds' ratios (on a machine whose speed drifts, one run each compares two "
                         "different states)")
    ap.add_argument("--json", type=Path, help="also write every figure as JSON")
    args = ap.parse_args()

    if not args.no_ours and not args.signorini.exists():
        sys.exit(f"bench_robot.py: {args.signorini} not found; cargo build --release -p signorini-cli "
                 f"(or --signorini PATH, or --no-ours)")
    robots = args.only or list(ROBOTS)
    for name in robots:
        for p in ROBOTS[name]:
            if not p.exists():
                sys.exit(f"bench_robot.py: {p} not found")
    if args.rounds < 1:
        sys.exit("bench_robot.py: --rounds must be at least 1")
    exe = build_coal_bench(args.cxx, args.opt)
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            results = {}
            for name in robots:
                print(f"{name}: Pinocchio + Coal (round {k + 1}) ...", file=sys.stderr)
                coal_rows = run_coal(exe, name, args.repeat, Path(tmp))
                for g in args.geometry:
                    ours = None
                    if not args.no_ours:
                        print(f"{name} {g}: signorini (round {k + 1}) ...", file=sys.stderr)
                        ours = run_ours(args.signorini, name, g, args.repeat, args.timeout)
                    results[f"{name}/{g}"] = {"coal": coal_rows[g], "ours": ours}
            rounds.append(results)
    results = best_of_rounds(rounds)

    print("| robot | geometry | pairs | configs | task | Pinocchio + Coal µs | signorini µs | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    errors = 0
    for key, r in results.items():
        name, g = key.split("/")
        c, o = r["coal"], r["ours"]
        for t in TASKS:
            cn = c[f"{t}_ns"]
            if o is None:
                on, ratio = None, "—"
            elif "error" in o:
                on, ratio = None, f"error: {o['error'][:60]}"
            else:
                on = o[f"{t}_ns"]
                ratio = f"{cn / on:.2f}" if on else "—"
            extra = f" (tol 1e-10: {us(c['distances_tight_ns'])})" if t == "distances" and g == "hull" else ""
            if "median_ratio" in r:
                ratio += f" (median of {len(rounds)} rounds: {r['median_ratio'][t]:.2f})"
            print(f"| {name} | {g} | {c['pairs']} | {c['configs']} | {t} | {us(cn)}{extra} | {us(on)} | {ratio} |")
        if o and "error" in o:
            errors += 1
        elif o and o["raw"] and o["raw"][0].get("pairs", c["pairs"]) != c["pairs"]:
            print(f"warning: {key}: signorini checks {o['raw'][0]['pairs']} pairs, Coal {c['pairs']} (the file's "
                  f"pair_names): the figures do not compare the same work", file=sys.stderr)
    print("\nratio = Coal time / signorini time (> 1: signorini faster). Coal: GJK/EPA at its default tolerance "
          "(1e-6); the figure in parentheses is at 1e-10, the reference files' tolerance.")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if errors:
        print(f"\n{errors} run(s) of signorini failed; the first line of each error is in the table"
              + (f", the full output in {args.json}" if args.json else " (--json OUT for the full output)"),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
