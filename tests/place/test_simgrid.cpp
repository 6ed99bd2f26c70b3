/*
 * Cross-check of iolens_place_simulate() with SimGrid (the simulator SAGE's
 * study used): random scenarios of jobs made of sleeps (compute) and disk
 * writes (I/O) on disks of equal read/write bandwidth, each disk an OST.
 * All scenarios run side by side in one SimGrid simulation (SimGrid has one
 * engine per process; scenarios share no disk, so they do not interact).
 * Completion and I/O times must agree within 1e-6 relative (1e-6 s for
 * times below 1 s). SimGrid's own rounding reaches ~1e-8 relative on
 * scenarios with many sharing changes (whatever its precision settings), so
 * an absolute 1e-6 s holds only on small scenarios.
 */
#include "iolens/place.h"

#include <simgrid/s4u.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

constexpr double MIB = 1048576.0;
constexpr int SCENARIOS = 60;

struct Scenario {
    unsigned nost = 1;
    double bandwidth = 1; // MiB/s
    std::vector<std::vector<iolens_place_phase>> phases;
    std::vector<double> start;
    std::vector<unsigned> ost;
    std::vector<double> sg_end, sg_io;
};

Scenario make_scenario(std::mt19937_64 &rng)
{
    Scenario s;
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    s.nost = (unsigned)pick(1, 3);
    s.bandwidth = (double)pick(1, 16);
    size_t n = (size_t)pick(1, 10);
    for (size_t j = 0; j < n; j++) {
        std::vector<iolens_place_phase> ph;
        int np = pick(1, 8), first_io = pick(0, 1);
        for (int p = 0; p < np; p++) {
            bool io = (p + first_io) % 2 == 1;
            /* Whole MiB (SimGrid counts bytes as integers); compute in 1/8 s. */
            ph.push_back({io ? IOLENS_PLACE_IO : IOLENS_PLACE_COMPUTE, io ? (double)pick(1, 200) : pick(1, 400) / 8.0});
        }
        s.phases.push_back(ph);
        s.start.push_back(pick(0, 400) / 4.0);
        s.ost.push_back((unsigned)pick(0, (int)s.nost - 1));
    }
    s.sg_end.assign(n, NAN);
    s.sg_io.assign(n, 0);
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> args = {argv[0], "--log=root.thresh:critical", "--cfg=contexts/factory:thread",
                                     "--cfg=maxmin/precision:1e-12", "--cfg=surf/precision:1e-12"};
    std::vector<char *> av;
    for (auto &a : args)
        av.push_back(a.data());
    int ac = (int)av.size();
    sg4::Engine engine(&ac, av.data());
    (void)argc;

    std::mt19937_64 rng(20261130);
    std::vector<Scenario> sc;
    /* First the hand-computed cases of test_sim.c (one OST each), which must
     * agree within 1e-6 s absolute; then random scenarios. */
    auto hand = [](double bw, std::vector<std::vector<iolens_place_phase>> ph, std::vector<double> start) {
        Scenario s;
        s.nost = 1;
        s.bandwidth = bw;
        s.phases = ph;
        s.start = start;
        s.ost.assign(ph.size(), 0);
        s.sg_end.assign(ph.size(), NAN);
        s.sg_io.assign(ph.size(), 0);
        return s;
    };
    const iolens_place_phase_kind C = IOLENS_PLACE_COMPUTE, IO = IOLENS_PLACE_IO;
    sc.push_back(hand(10, {{{C, 3}, {IO, 50}, {C, 1}}}, {2}));
    sc.push_back(hand(10, {{{IO, 100}}, {{IO, 100}}}, {0, 0}));
    sc.push_back(hand(10, {{{IO, 100}}, {{C, 5}, {IO, 20}}}, {0, 0}));
    sc.push_back(hand(9, {{{IO, 60}}, {{IO, 30}}, {{IO, 30}}}, {0, 0, 0}));
    sc.push_back(hand(10, {{{IO, 20}, {C, 2}, {IO, 20}}, {{IO, 40}}}, {0, 0}));
    const int nhand = (int)sc.size();
    while ((int)sc.size() < SCENARIOS)
        sc.push_back(make_scenario(rng));

    auto *zone = sg4::create_full_zone("world");
    std::vector<std::vector<sg4::Disk *>> disks(SCENARIOS);
    std::vector<sg4::Host *> hosts;
    for (int i = 0; i < SCENARIOS; i++) {
        sg4::Host *h = zone->create_host("h" + std::to_string(i), 1e9);
        for (unsigned o = 0; o < sc[i].nost; o++) {
            double bw = sc[i].bandwidth * MIB;
            disks[i].push_back(h->create_disk("d" + std::to_string(i) + "_" + std::to_string(o), bw, bw));
        }
        hosts.push_back(h);
    }
    zone->seal();

    for (int i = 0; i < SCENARIOS; i++) {
        for (size_t j = 0; j < sc[i].phases.size(); j++) {
            Scenario *s = &sc[i];
            sg4::Disk *d = disks[i][s->ost[j]];
            sg4::Actor::create("job" + std::to_string(i) + "_" + std::to_string(j), hosts[i], [s, j, d]() {
                sg4::this_actor::sleep_until(s->start[j]);
                for (const iolens_place_phase &p : s->phases[j]) {
                    if (p.kind == IOLENS_PLACE_COMPUTE) {
                        sg4::this_actor::sleep_for(p.amount);
                    } else {
                        double t0 = sg4::Engine::get_clock();
                        d->write((sg_size_t)(p.amount * MIB));
                        s->sg_io[j] += sg4::Engine::get_clock() - t0;
                    }
                }
                s->sg_end[j] = sg4::Engine::get_clock();
            });
        }
    }
    engine.run();

    int bad = 0;
    size_t jobs = 0;
    double worst = 0, worst_rel = 0;
    for (int i = 0; i < SCENARIOS; i++) {
        Scenario &s = sc[i];
        size_t n = s.phases.size();
        std::vector<iolens_place_job> jb(n);
        for (size_t j = 0; j < n; j++)
            jb[j] = {s.start[j], s.phases[j].data(), s.phases[j].size()};
        std::vector<iolens_place_outcome> out(n);
        if (iolens_place_simulate(out.data(), nullptr, jb.data(), n, s.ost.data(), s.nost, s.bandwidth)) {
            std::fprintf(stderr, "scenario %d: %s\n", i, iolens_error_last());
            return 1;
        }
        for (size_t j = 0; j < n; j++, jobs++) {
            double de = std::fabs(out[j].end - s.sg_end[j]), di = std::fabs(out[j].io_time - s.sg_io[j]);
            double se = std::max(1.0, std::fabs(s.sg_end[j])), si = std::max(1.0, std::fabs(s.sg_io[j]));
            worst = std::max(worst, std::max(de, di));
            worst_rel = std::max(worst_rel, std::max(de / se, di / si));
            if (i < nhand) {
                se = 1;
                si = 1;
            }
            if (!(de <= 1e-6 * se) || !(di <= 1e-6 * si)) {
                std::fprintf(stderr, "scenario %d job %zu: end %.9f vs SimGrid %.9f, io %.9f vs %.9f\n", i, j,
                             out[j].end, s.sg_end[j], out[j].io_time, s.sg_io[j]);
                bad++;
            }
        }
    }
    std::printf("%d scenarios, %zu jobs: largest difference with SimGrid %.3g s (relative %.3g), %d above 1e-6\n",
                SCENARIOS, jobs, worst, worst_rel, bad);
    return bad ? 1 : 0;
}
