// The training planner's search (train_plan.h): enumerate, bound, estimate, rank.
// Index: [SECTION] layout rules, [SECTION] the search, [SECTION] ranking and the front,
// [SECTION] neighbours.
#include "core/plan/train_plan.h"

#include <algorithm>
#include <cmath>

#include "core/config/gpu_count.h"
#include "core/config/stacks.h"
#include "core/config/validate.h"
#include "core/estimate/speed.h"
#include "core/base/units.h"
#include "core/solve/fit.h"

namespace llmmem::core {
namespace {

// [SECTION] layout rules -----------------------------------------------------------------

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

// The strategies of the model states: DDP, DeepSpeed ZeRO-1/2/3, FSDP SHARD_GRAD_OP and
// FULL_SHARD (FSDP has no optimizer-only stage: validate.cpp refuses sharding fsdp at zero 1).
struct Strategy {
  int zero;
  bool fsdp;
};
constexpr Strategy kStrategies[] = {{0, false}, {1, false}, {2, false}, {3, false}, {2, true}, {3, true}};
// Least memory first: full keeps one input per layer; torchtitan's op-level policy keeps
// every other matmul's output; Korthikanti's selective all but the attention core; none all.
constexpr Recompute kRecomputes[] = {Recompute::kFull, Recompute::kOpSelective, Recompute::kSelective,
                                     Recompute::kNone};
// kAuto is one of these under another name (optimizer_impl.cpp), so it is not searched twice.
constexpr OptimizerImpl kImpls[] = {OptimizerImpl::kForeach, OptimizerImpl::kFused, OptimizerImpl::kForLoop,
                                    OptimizerImpl::kInBackward};

// The rules the frameworks enforce that the estimate's validation does not (it estimates
// any split); empty when the layout runs. `global_seqs`: sequences per optimizer step.
std::string LayoutRule(const ModelSpec& m, const PlanSettings& s, int64_t global_seqs) {
  if (s.tp * s.pp * s.cp * s.dp != s.gpus) return "tp x pp x cp x dp is not the GPU count";
  if (s.dp * s.micro_batch * s.grad_accum != global_seqs)
    return "the global batch is not a whole number of micro-batches on every replica";
  // Megatron-Core transformer_config.py (NVIDIA/Megatron-LM@d98e8a6, lines 1446 and 1462):
  // heads and query groups must divide by tp.
  if (m.heads % s.tp != 0 || m.kv_heads % s.tp != 0) return "tp must divide the attention heads and KV heads";
  if (s.vpp > 1) {
    // Interleaving needs pipeline stages, and each stage's layers split evenly over its
    // virtual stages (transformer_config.py line 2315: "must be divisible by virtual pipeline").
    if (s.pp < 2) return "virtual stages need pp > 1";
    const int64_t per_stage = (m.layers + s.pp - 1) / s.pp;
    if (per_stage % s.vpp != 0) return "a stage's layers do not split evenly into the virtual stages";
  }
  if (s.ep > 1) {
    if (!m.IsMoe()) return "expert parallelism needs a mixture-of-experts model";
    // parallel_state.py (line 876): the expert grid is carved out of the data- and
    // context-parallel ranks.
    if ((s.dp * s.cp) % s.ep != 0) return "ep must divide dp x cp";
  }
  // DeepSpeed's offload_optimizer applies to ZeRO stages 1-3 (DeepSpeed config docs).
  if (s.offload && s.zero == 0) return "optimizer offload needs ZeRO 1 or more";
  // torchtune's recipes refuse optimizer-in-backward with accumulation
  // ("Gradient accumulation is not supported with optimizer in bwd").
  if (s.optimizer_impl == OptimizerImpl::kInBackward && s.grad_accum > 1)
    return "optimizer in backward cannot accumulate gradients";
  return "";
}

std::vector<int64_t> GpuCounts(const TrainPlanRequest& r) {
  if (r.max_gpus <= 0) return {r.gpus};
  std::vector<int64_t> n;
  const int64_t node = std::max<int64_t>(1, r.links.gpus_per_node);
  for (int64_t g = 1; g <= r.max_gpus; ++g)
    if ((g & (g - 1)) == 0 || g % node == 0) n.push_back(g);
  return n;
}

bool Feasible(const Totals& t, double budget) {
  return t.ok && t.peak_bytes <= budget && !t.host_short && t.not_counted == 0;
}

// Per recompute mode: the whole step's FLOPs (they depend on the global batch and the
// recompute only) and one GPU's peak, from the speed model (speed.h) on the first valid
// layout. It counts none and full; the two partial policies are derived from them:
//  - selective (Korthikanti et al. 2022, section 5) recomputes the attention core only:
//    the 4 L h s per token of full recompute's extra forward that is attention;
//  - torchtitan's op-level policy recomputes every other matmul and keeps attention's
//    output (torchtitan/distributed/activation_checkpoint.py@b5bcd76c, SelectiveAC): half
//    the extra forward's 2N.
struct SpeedCache {
  double step_flops[static_cast<int>(Recompute::kLast) + 1] = {};
  double peak_flops = 0;
  bool tried = false;
  std::string why_not;
  double Flops(const Config& c) {
    if (!tried) {
      tried = true;
      Config k = c;
      k.recompute = Recompute::kNone;
      const SpeedEstimate none = EstimateSpeed(k);
      k.recompute = Recompute::kFull;
      const SpeedEstimate full = EstimateSpeed(k);
      if (!none.ok || !full.ok) {
        why_not = none.ok ? full.why_not : none.why_not;
        return 0;
      }
      peak_flops = none.peak_flops;
      const double tokens = static_cast<double>(c.batch * c.seq * c.grad_accum * c.dp);
      const double attention = 4.0 * c.model.layers * c.model.hidden * static_cast<double>(c.seq) * tokens;
      const double extra = full.step_flops - none.step_flops;
      step_flops[static_cast<int>(Recompute::kNone)] = none.step_flops;
      step_flops[static_cast<int>(Recompute::kFull)] = full.step_flops;
      step_flops[static_cast<int>(Recompute::kSelective)] = none.step_flops + attention;
      step_flops[static_cast<int>(Recompute::kOpSelective)] = none.step_flops + 0.5 * (extra - attention);
    }
    return step_flops[static_cast<int>(c.recompute)];
  }
};

}  // namespace

namespace {

// The point's settings on the base, before the program's defaults follow them.
Config PlanSettingsOnly(const Config& base, int64_t seq, const PlanSettings& s) {
  Config c = base;
  c.seq = seq;
  c.tp = s.tp;
  c.pp = s.pp;
  c.cp = s.cp;
  c.ep = s.ep;
  c.dp = s.dp;
  // Sequence parallelism with every tp > 1: the same bytes on the wire, less memory
  // (Korthikanti et al. 2022, 4.2.2); Megatron's and torchtitan's recipes turn it on with TP.
  c.sp = s.tp > 1;
  c.schedule = s.vpp > 1 ? Schedule::kInterleaved : Schedule::k1F1B;
  if (s.vpp > 1) c.vpp = s.vpp;
  c.zero = s.zero;
  c.zero_group = 0;
  c.sharding = s.fsdp ? Sharding::kFsdp : Sharding::kDeepSpeed;
  c.recompute = s.recompute;
  c.offload_activations = false;
  c.batch = s.micro_batch;
  c.grad_accum = s.grad_accum;
  c.offload_optimizer = s.offload ? Offload::kCpu : Offload::kNone;
  c.offload_params = Offload::kNone;
  c.optimizer_impl = s.optimizer_impl;
  return c;
}

}  // namespace

Config ApplyPlanSettings(const Config& base, int64_t seq, const PlanSettings& s) {
  Config c = PlanSettingsOnly(base, seq, s);
  FollowChanged(c, base);  // the program's defaults under these settings (stacks.h)
  return c;
}

// [SECTION] the search ---------------------------------------------------------------------

namespace {

struct Search {
  const TrainPlanRequest& r;
  int64_t seq;
  int64_t global_seqs;
  double budget;
  SpeedCache speed;
  TrainPlan& out;
  StackFollower follow;  // ApplyPlanSettings' FollowChanged, memoised for the search

  void Record(const Config& c, const Totals& t, const PlanSettings& s) {
    ++out.counts.feasible;
    const double flops = speed.Flops(c);
    const StepTime st = PlanStepTime(c, t, flops, speed.peak_flops, r.links);
    out.feasible.push_back({s, t.peak_bytes, st.ok ? st.total_s : INFINITY});
  }

  // One layout of the model states: every recompute x micro-batch, bounded (train_plan.h).
  void StatesLayout(const Config& layout, PlanSettings& s, const std::vector<int64_t>& mbs) {
    Config c;
    const int64_t n = static_cast<int64_t>(mbs.size());
    const int64_t all = n * static_cast<int64_t>(std::size(kRecomputes));
    out.counts.considered += all;
    int64_t limit = n;
    for (const Recompute rec : kRecomputes) {
      s.recompute = rec;
      c = layout;
      c.recompute = rec;
      follow.Apply(c);  // = ApplyPlanSettings(r.base, seq, s): the program's defaults follow
      out.counts.pruned += n - limit;  // larger than a heavier recompute's largest fit
      int64_t fit_upto = r.prune ? 0 : n;
      for (int64_t i = 0; i < limit; ++i) {
        s.micro_batch = mbs[i];
        s.grad_accum = global_seqs / (s.dp * mbs[i]);
        if (!LayoutRule(c.model, s, global_seqs).empty()) {
          ++out.counts.invalid;
          continue;
        }
        c.batch = s.micro_batch;
        c.grad_accum = s.grad_accum;
        const Totals t = EstimateTotals(c);
        if (!t.ok) {
          ++out.counts.invalid;
          continue;
        }
        ++out.counts.evaluated;
        if (Feasible(t, budget)) {
          Record(c, t, s);
          fit_upto = i + 1;
          continue;
        }
        if (!r.prune) continue;
        // A micro-batch that does not fit rules out the larger ones; at full recompute's
        // smallest, the whole layout.
        const int64_t rest = i == 0 && rec == kRecomputes[0] ? all - 1 : limit - i - 1;
        out.counts.pruned += rest;
        if (i == 0 && rec == kRecomputes[0]) return;
        break;
      }
      if (r.prune) limit = std::min(limit, fit_upto);
    }
  }

  void Run() {
    for (const int64_t gpus : GpuCounts(r)) {
      for (const int64_t tp : Divisors(gpus))
        for (const int64_t pp : Divisors(gpus / tp))
          for (const int64_t cp : Divisors(gpus / (tp * pp))) {
            const int64_t dp = gpus / (tp * pp * cp);
            if (global_seqs % dp != 0) continue;  // no micro-batch gives whole accumulation steps
            const std::vector<int64_t> mbs = Divisors(global_seqs / dp);
            std::vector<int64_t> vpps{1};
            if (pp > 1)
              for (int64_t v : Divisors((r.base.model.layers + pp - 1) / pp))
                if (v > 1) vpps.push_back(v);
            std::vector<int64_t> eps{1};
            if (r.base.model.IsMoe())
              for (int64_t e : Divisors(dp * cp))
                if (e > 1) eps.push_back(e);
            PlanSettings s;
            s.gpus = gpus;
            s.tp = tp;
            s.pp = pp;
            s.cp = cp;
            s.dp = dp;
            Config c = PlanSettingsOnly(r.base, seq, s);
            for (const int64_t vpp : vpps)
              for (const int64_t ep : eps)
                for (const Strategy& st : kStrategies)
                  for (const bool offload : {false, true})
                    for (const OptimizerImpl impl : kImpls) {
                      s.vpp = vpp;
                      s.ep = ep;
                      s.zero = st.zero;
                      s.fsdp = st.fsdp;
                      s.offload = offload;
                      s.optimizer_impl = impl;
                      c = PlanSettingsOnly(r.base, seq, s);
                      StatesLayout(c, s, mbs);
                    }
          }
    }
  }
};

}  // namespace

// [SECTION] neighbours ---------------------------------------------------------------------

namespace {

std::string Gb(double bytes) { return FormatNumber(bytes / 1e9, 1) + " GB"; }

PlanNeighbour Neighbour(const TrainPlanRequest& r, int64_t seq, int64_t global_seqs, double budget, SpeedCache& speed,
                        const PlanSettings& s, const std::string& change, double best_s) {
  PlanNeighbour n;
  n.change = change;
  const std::string rule = LayoutRule(r.base.model, s, global_seqs);
  if (!rule.empty()) {
    n.verdict = "not_a_layout";
    n.text = change + ": " + rule;
    return n;
  }
  const Config c = ApplyPlanSettings(r.base, seq, s);
  const Totals t = EstimateTotals(c);
  if (!t.ok) {
    n.verdict = "refused";
    n.text = change + ": refused";
    for (const Diagnostic& d : Validate(c))
      if (d.severity == Severity::kError) {
        n.text += ": " + (d.field.empty() ? "" : d.field + ": ") + d.message;
        break;
      }
    return n;
  }
  n.peak_bytes = t.peak_bytes;
  if (!Feasible(t, budget)) {
    n.verdict = "does_not_fit";
    n.over_bytes = t.peak_bytes - budget;
    n.text = change + ": does not fit, " + Gb(t.peak_bytes) + " is over the budget by " + Gb(n.over_bytes);
    return n;
  }
  const StepTime st = PlanStepTime(c, t, speed.Flops(c), speed.peak_flops, r.links);
  n.verdict = "fits";
  n.step_s = st.total_s;
  const double pct = best_s > 0 ? (st.total_s / best_s - 1) * 100 : 0;
  n.text = change + ": fits (" + Gb(t.peak_bytes) + ") but its step takes " + FormatNumber(st.total_s, 3) + " s (" +
           (pct >= 0 ? "+" : "") + FormatNumber(pct, 1) + "%)";
  return n;
}

std::vector<PlanNeighbour> Neighbours(const TrainPlanRequest& r, int64_t seq, int64_t global_seqs, double budget,
                                      SpeedCache& speed, const PlanSettings& s, double best_s) {
  std::vector<PlanNeighbour> out;
  auto add = [&](PlanSettings n, const std::string& change) {
    n.grad_accum = n.dp > 0 && n.micro_batch > 0 ? global_seqs / (n.dp * n.micro_batch) : 0;
    out.push_back(Neighbour(r, seq, global_seqs, budget, speed, n, change, best_s));
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  // The next larger micro-batch that divides the replica's share of the batch.
  const int64_t share = global_seqs / s.dp;
  for (int64_t m = s.micro_batch + 1; m <= share; ++m)
    if (share % m == 0) {
      PlanSettings n = s;
      n.micro_batch = m;
      add(n, "micro_batch " + num(s.micro_batch) + " -> " + num(m));
      break;
    }
  if (s.tp > 1) {  // lower tp, its GPUs to data parallelism
    PlanSettings n = s;
    n.tp = s.tp / 2;
    n.dp = s.dp * 2;
    add(n, "tp " + num(s.tp) + " -> " + num(n.tp));
  }
  if (s.pp > 1) {
    PlanSettings n = s;
    n.pp = s.pp / 2;
    n.dp = s.dp * 2;
    if (n.pp < 2) n.vpp = 1;
    add(n, "pp " + num(s.pp) + " -> " + num(n.pp));
  }
  if (s.cp > 1) {
    PlanSettings n = s;
    n.cp = s.cp / 2;
    n.dp = s.dp * 2;
    add(n, "cp " + num(s.cp) + " -> " + num(n.cp));
  }
  if (s.zero > 0) {
    PlanSettings n = s;
    n.zero = s.zero - 1;
    if (n.zero < 2) n.fsdp = false;
    if (n.zero == 0) n.offload = false;
    add(n, "zero " + num(s.zero) + " -> " + num(n.zero));
  }
  if (s.recompute != Recompute::kNone) {
    PlanSettings n = s;
    n.recompute = s.recompute == Recompute::kFull        ? Recompute::kOpSelective
                  : s.recompute == Recompute::kOpSelective ? Recompute::kSelective
                                                           : Recompute::kNone;
    add(n, std::string("recompute ") + Id(s.recompute) + " -> " + Id(n.recompute));
  }
  if (s.offload) {
    PlanSettings n = s;
    n.offload = false;
    add(n, "offload_optimizer cpu -> none");
  }
  return out;
}

// [SECTION] ranking and the front ------------------------------------------------------------

bool Faster(const PlanPoint& a, const PlanPoint& b) {
  if (a.step_s != b.step_s) return a.step_s < b.step_s;
  return a.peak_bytes < b.peak_bytes;
}

}  // namespace

TrainPlan PlanTraining(const TrainPlanRequest& r) {
  TrainPlan out;
  const int64_t seq = r.seq > 0 ? r.seq : r.base.seq;
  if (r.base.mode != Mode::kTraining) {
    out.error = "the training planner plans full training (mode training)";
    return out;
  }
  if (!r.base.model.HasArchitecture()) {
    out.error = "the planner needs the model's dimensions (layers, heads, hidden size)";
    return out;
  }
  if (seq <= 0 || r.global_batch_tokens <= 0 || r.global_batch_tokens % seq != 0) {
    out.error = "the global batch (" + std::to_string(r.global_batch_tokens) +
                " tokens) must be a positive whole number of sequences of " + std::to_string(seq) + " tokens";
    return out;
  }
  if ((r.max_gpus <= 0 && (r.gpus < 1 || r.gpus > 1000000)) || r.max_gpus > 1000000) {
    out.error = "the GPU count must be between 1 and 1,000,000";
    return out;
  }
  out.capacity_bytes = CapacityBytes(r.base);
  out.budget_bytes = AnswerBudget(r.base);  // the one headroom policy (fit.h AnswerBudget)
  Search search{r, seq, r.global_batch_tokens / seq, out.budget_bytes, SpeedCache{}, out, StackFollower(r.base)};
  search.Run();
  std::sort(out.feasible.begin(), out.feasible.end(), Faster);
  double least = INFINITY;
  for (const PlanPoint& p : out.feasible)
    if (p.peak_bytes < least) {
      least = p.peak_bytes;
      out.pareto.push_back(p);
    }
  const size_t top = std::min(out.feasible.size(), static_cast<size_t>(std::max(0, r.top)));
  for (size_t i = 0; i < top; ++i) {
    PlanCandidate k;
    k.rank = static_cast<int>(i) + 1;
    k.settings = out.feasible[i].settings;
    k.config = ApplyPlanSettings(r.base, seq, k.settings);
    k.totals = EstimateTotals(k.config);
    k.time = PlanStepTime(k.config, k.totals, search.speed.Flops(k.config), search.speed.peak_flops, r.links);
    k.neighbours = Neighbours(r, seq, search.global_seqs, out.budget_bytes, search.speed, k.settings,
                              out.feasible[i].step_s);
    out.best.push_back(std::move(k));
  }
  if (!search.speed.why_not.empty()) {
    out.error = "no step time: " + search.speed.why_not;
    return out;
  }
  out.ok = true;
  return out;
}

int64_t RankOf(const TrainPlan& plan, const PlanMatch& w, const PlanPoint** match) {
  auto eq = [](int64_t want, int64_t have) { return want < 0 || want == have; };
  for (const PlanPoint& p : plan.feasible) {  // fastest first
    const PlanSettings& s = p.settings;
    if (!(eq(w.tp, s.tp) && eq(w.pp, s.pp) && eq(w.vpp, s.vpp) && eq(w.cp, s.cp) && eq(w.ep, s.ep) &&
          eq(w.dp, s.dp) && eq(w.micro_batch, s.micro_batch) && eq(w.zero, s.zero) && eq(w.fsdp, s.fsdp ? 1 : 0) &&
          eq(w.recompute, static_cast<int>(s.recompute)) && eq(w.offload, s.offload ? 1 : 0)))
      continue;
    if (match != nullptr) *match = &p;
    int64_t faster = 0;
    while (faster < static_cast<int64_t>(plan.feasible.size()) && plan.feasible[faster].step_s < p.step_s) ++faster;
    return faster + 1;
  }
  return -1;
}

std::string LayoutText(const PlanSettings& s) {
  std::string out = "tp " + std::to_string(s.tp) + " pp " + std::to_string(s.pp);
  if (s.vpp > 1) out += " (vpp " + std::to_string(s.vpp) + ")";
  out += " cp " + std::to_string(s.cp);
  if (s.ep > 1) out += " ep " + std::to_string(s.ep);
  out += " dp " + std::to_string(s.dp) + ", ";
  out += s.zero == 0 ? std::string("DDP")
                     : s.fsdp ? std::string(s.zero == 3 ? "FSDP full_shard" : "FSDP shard_grad_op")
                              : "ZeRO-" + std::to_string(s.zero);
  out += ", recompute " + std::string(Id(s.recompute)) + ", micro-batch " + std::to_string(s.micro_batch) +
         " x " + std::to_string(s.grad_accum) + " accumulation";
  if (s.offload) out += ", optimizer on CPU";
  out += ", optimizer " + std::string(Id(s.optimizer_impl));
  return out;
}

}  // namespace llmmem::core
