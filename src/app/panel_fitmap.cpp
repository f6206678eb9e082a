// The fit map: the micro-batch x sequence-length plane coloured by peak / capacity, with
// the OOM boundary (ratio 1) and the current configuration marked. The grid is computed
// with EstimateTotals (only when the configuration changes), uploaded as an R32F texture
// and drawn by shaders/fitmap.{vert,frag}.glsl from an ImDrawList callback; without GL
// entry points or on a shader error it falls back to ImDrawList rectangles.
// [SECTION] Grid   [SECTION] GL   [SECTION] Panel
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/chart_math.h"
#include "app/gl_min.h"
#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "core/catalogue/embedded.h"
#include "imgui.h"

namespace llmmem::app {

extern const core::EmbeddedFile kEmbeddedAssets[];

namespace {

constexpr int kPerOctave = 4;

// [SECTION] Grid --------------------------------------------------------------------------

struct Grid {
  std::string key;
  std::vector<int64_t> seqs, batches;  // columns, rows (bottom-up)
  std::vector<float> ratio;            // rows * cols, row-major; <= 0: no estimate
  std::vector<double> boundary;        // per column: fractional row index where ratio reaches 1 (-1 never)
  int64_t max_seq = 0, max_batch = 0;
};

double g_compute_ms = -1;  // the last grid's time (bench/ reads it through the test hook)

void Compute(Grid& g, const State& s) {
  if (g.key == s.config_query) return;
  const auto t0 = std::chrono::steady_clock::now();
  g.key = s.config_query;
  const core::Config& c = s.config;
  const int64_t seq_hi = std::max<int64_t>(
      int64_t{1} << 17, int64_t{1} << static_cast<int>(std::ceil(std::log2(std::max<int64_t>(c.seq, 1) * 2.0))));
  const int64_t batch_hi =
      std::max<int64_t>(256, int64_t{1} << static_cast<int>(std::ceil(std::log2(std::max<int64_t>(c.batch, 1) * 2.0))));
  g.seqs = chart::LogSamples(128, std::min<int64_t>(seq_hi, int64_t{1} << 24), kPerOctave);
  g.batches = chart::LogSamples(1, std::min<int64_t>(batch_hi, int64_t{1} << 20), kPerOctave);
  g.max_seq = g.seqs.back();
  g.max_batch = g.batches.back();
  const int cols = static_cast<int>(g.seqs.size()), rows = static_cast<int>(g.batches.size());
  g.ratio.assign(static_cast<size_t>(cols) * rows, 0.0f);
  core::Config k = c;
  for (int r = 0; r < rows; ++r) {
    k.batch = g.batches[r];
    for (int q = 0; q < cols; ++q) {
      k.seq = g.seqs[q];
      const core::Totals t = core::EstimateTotals(k);
      g.ratio[static_cast<size_t>(r) * cols + q] =
          t.ok && t.capacity_bytes > 0 ? static_cast<float>(t.peak_bytes / t.capacity_bytes) : 0.0f;
    }
  }
  g.boundary.assign(cols, -1);
  std::vector<double> column(rows);
  for (int q = 0; q < cols; ++q) {
    for (int r = 0; r < rows; ++r) column[r] = g.ratio[static_cast<size_t>(r) * cols + q];
    g.boundary[q] = chart::FirstCrossing(column.data(), rows, 1.0);
  }
  g_compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// [SECTION] GL ----------------------------------------------------------------------------

struct Gpu {
  bool tried = false, ok = false;
  gl::GLuint program = 0, vao = 0, texture = 0;
  gl::GLint u_ratio = -1, u_grid = -1;
  std::string uploaded_key;
  int cols = 0, rows = 0;
  std::string error;
  // Per frame, for the draw callback.
  ImVec4 rect;  // x0, y0, x1, y1 in ImGui display coordinates
  bool dark = true;
};
Gpu g_gpu;

std::string AssetText(const char* name) {
  for (const core::EmbeddedFile* f = kEmbeddedAssets; f->name != nullptr; ++f)
    if (std::strcmp(f->name, name) == 0) return f->Text();
  return std::string();
}

gl::GLuint Compile(gl::GLenum type, const std::string& header, const std::string& body, std::string& error) {
  const std::string src = header + body;
  const char* p = src.c_str();
  const gl::GLuint sh = gl::api.CreateShader(type);
  gl::api.ShaderSource(sh, 1, &p, nullptr);
  gl::api.CompileShader(sh);
  gl::GLint ok = 0;
  gl::api.GetShaderiv(sh, gl::kCompileStatus, &ok);
  if (!ok) {
    char log[1024] = "";
    gl::api.GetShaderInfoLog(sh, sizeof log, nullptr, log);
    error = log;
    gl::api.DeleteShader(sh);
    return 0;
  }
  return sh;
}

void InitGpu(const std::string& header) {
  g_gpu.tried = true;
  if (!gl::Loaded()) {
    g_gpu.error = "GL entry points unavailable";  // not UI text: kept for a debugger
    return;
  }
  const std::string vs_src = AssetText("fitmap.vert.glsl"), fs_src = AssetText("fitmap.frag.glsl");
  if (vs_src.empty() || fs_src.empty()) {
    g_gpu.error = "shaders not embedded";  // not UI text: kept for a debugger
    return;
  }
  const gl::GLuint vs = Compile(gl::kVertexShader, header, vs_src, g_gpu.error);
  const gl::GLuint fs = vs ? Compile(gl::kFragmentShader, header, fs_src, g_gpu.error) : 0;
  if (!vs || !fs) {
    if (vs) gl::api.DeleteShader(vs);
    return;
  }
  g_gpu.program = gl::api.CreateProgram();
  gl::api.AttachShader(g_gpu.program, vs);
  gl::api.AttachShader(g_gpu.program, fs);
  gl::api.LinkProgram(g_gpu.program);
  gl::api.DeleteShader(vs);
  gl::api.DeleteShader(fs);
  gl::GLint ok = 0;
  gl::api.GetProgramiv(g_gpu.program, gl::kLinkStatus, &ok);
  if (!ok) {
    char log[1024] = "";
    gl::api.GetProgramInfoLog(g_gpu.program, sizeof log, nullptr, log);
    g_gpu.error = log;
    gl::api.DeleteProgram(g_gpu.program);
    g_gpu.program = 0;
    return;
  }
  g_gpu.u_ratio = gl::api.GetUniformLocation(g_gpu.program, "u_ratio");
  g_gpu.u_grid = gl::api.GetUniformLocation(g_gpu.program, "u_grid");
  gl::api.GenVertexArrays(1, &g_gpu.vao);
  gl::api.GenTextures(1, &g_gpu.texture);
  g_gpu.ok = true;
}

void Upload(const Grid& g) {
  if (g_gpu.uploaded_key == g.key) return;
  g_gpu.uploaded_key = g.key;
  g_gpu.cols = static_cast<int>(g.seqs.size());
  g_gpu.rows = static_cast<int>(g.batches.size());
  gl::api.ActiveTexture(gl::kTexture0);
  gl::api.BindTexture(gl::kTexture2D, g_gpu.texture);
  gl::api.TexParameteri(gl::kTexture2D, gl::kTextureMinFilter, gl::kNearest);
  gl::api.TexParameteri(gl::kTexture2D, gl::kTextureMagFilter, gl::kNearest);
  gl::api.TexParameteri(gl::kTexture2D, gl::kTextureWrapS, gl::kClampToEdge);
  gl::api.TexParameteri(gl::kTexture2D, gl::kTextureWrapT, gl::kClampToEdge);
  gl::api.PixelStorei(gl::kUnpackAlignment, 4);
  gl::api.TexImage2D(gl::kTexture2D, 0, static_cast<gl::GLint>(gl::kR32F), g_gpu.cols, g_gpu.rows, 0, gl::kRed,
                     gl::kFloat, g.ratio.data());
}

// Runs inside ImGui_ImplOpenGL3_RenderDrawData; the renderer restores its state after
// (ImDrawCallback_ResetRenderState follows this callback).
void DrawCallback(const ImDrawList*, const ImDrawCmd* cmd) {
  const ImDrawData* dd = ImGui::GetDrawData();
  if (dd == nullptr || !g_gpu.ok) return;
  const ImVec2 sc = dd->FramebufferScale;
  const float fb_h = dd->DisplaySize.y * sc.y;
  auto fx = [&](float x) { return static_cast<gl::GLint>(std::lround((x - dd->DisplayPos.x) * sc.x)); };
  auto fy = [&](float y) { return static_cast<gl::GLint>(std::lround(fb_h - (y - dd->DisplayPos.y) * sc.y)); };
  const ImVec4 r = g_gpu.rect;
  gl::api.Viewport(fx(r.x), fy(r.w), fx(r.z) - fx(r.x), fy(r.y) - fy(r.w));
  const ImVec4 c = cmd->ClipRect;
  gl::api.Enable(gl::kScissorTest);
  gl::api.Scissor(fx(c.x), fy(c.w), std::max(0, fx(c.z) - fx(c.x)), std::max(0, fy(c.y) - fy(c.w)));
  gl::api.UseProgram(g_gpu.program);
  gl::api.ActiveTexture(gl::kTexture0);
  gl::api.BindTexture(gl::kTexture2D, g_gpu.texture);
  gl::api.Uniform1i(g_gpu.u_ratio, 0);
  gl::api.Uniform4f(g_gpu.u_grid, static_cast<float>(g_gpu.cols), static_cast<float>(g_gpu.rows),
                    g_gpu.dark ? 1.0f : 0.0f, 0);
  gl::api.BindVertexArray(g_gpu.vao);
  gl::api.DrawArrays(gl::kTriangleStrip, 0, 4);
}

// [SECTION] Panel -------------------------------------------------------------------------

ImU32 FitU32(double ratio) {
  float rgb[3];
  chart::FitColor(ratio, rgb);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(rgb[0], rgb[1], rgb[2], 1));
}

void CpuCells(ImDrawList* dl, const Grid& g, ImVec2 a0, ImVec2 a1) {
  const int cols = static_cast<int>(g.seqs.size()), rows = static_cast<int>(g.batches.size());
  const float cw = (a1.x - a0.x) / static_cast<float>(cols - 1), ch = (a1.y - a0.y) / static_cast<float>(rows - 1);
  for (int r = 0; r < rows; ++r)
    for (int q = 0; q < cols; ++q) {
      const float x = a0.x + cw * (static_cast<float>(q) - 0.5f), y = a1.y - ch * (static_cast<float>(r) + 0.5f);
      dl->AddRectFilled(ImVec2(std::max(a0.x, x), std::max(a0.y, y)),
                        ImVec2(std::min(a1.x, x + cw), std::min(a1.y, y + ch)),
                        FitU32(g.ratio[static_cast<size_t>(r) * cols + q]));
    }
}

}  // namespace

double LastFitMapMs() { return g_compute_ms; }

void DrawFitMap(const State& s) {
  static Grid grid;
  if (!s.estimate.totals.ok) {
    ImGui::TextDisabled("%s", Tr("No fit map while the inputs have errors."));
    return;
  }
  Compute(grid, s);
  if (!g_gpu.tried) InitGpu(s.hooks.glsl_header);
  if (g_gpu.ok) Upload(grid);

  const float em = ImGui::GetFontSize();
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(
      Tr("Peak per GPU as a share of the GPU's memory, over batch and sequence length (both log2). "
         "The line is the out-of-memory boundary; the ring marks the current configuration."));
  ImGui::PopTextWrapPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(avail.x, std::max(em * 12, avail.y - em * 2.2f));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("fitmap", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 a0(p0.x + em * 3.2f, p0.y + em * 1.6f);
  const ImVec2 a1(p0.x + size.x - em * 0.5f, p0.y + size.y - em * 2.4f);
  const int cols = static_cast<int>(grid.seqs.size()), rows = static_cast<int>(grid.batches.size());
  const chart::Log2 xs{static_cast<double>(grid.seqs.front()), static_cast<double>(grid.max_seq), a0.x, a1.x};
  const chart::Log2 ys{static_cast<double>(grid.batches.front()), static_cast<double>(grid.max_batch), a1.y, a0.y};

  if (g_gpu.ok) {
    g_gpu.rect = ImVec4(a0.x, a0.y, a1.x, a1.y);
    g_gpu.dark = IsDark();
    dl->PushClipRect(a0, a1, true);
    dl->AddCallback(DrawCallback, nullptr);
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
    dl->PopClipRect();
  } else {
    dl->PushClipRect(a0, a1, true);
    CpuCells(dl, grid, a0, a1);
    dl->PopClipRect();
  }

  // OOM boundary (column by column), drawn over the map in both paths.
  const ImU32 ink = IsDark() ? IM_COL32(255, 255, 255, 255) : IM_COL32(0, 0, 0, 255);
  const float row_h = (a1.y - a0.y) / static_cast<float>(rows - 1);
  const float col_w = (a1.x - a0.x) / static_cast<float>(cols - 1);
  if (!g_gpu.ok) {
    for (int q = 0; q + 1 < cols; ++q) {
      const double b0 = grid.boundary[q], b1 = grid.boundary[q + 1];
      if (b0 <= 0 || b1 <= 0) continue;
      dl->AddLine(ImVec2(a0.x + col_w * q, a1.y - row_h * static_cast<float>(b0)),
                  ImVec2(a0.x + col_w * (q + 1), a1.y - row_h * static_cast<float>(b1)), ink, 2.0f);
    }
  }
  // Axes.
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  char buf[24];
  for (int64_t v : chart::PowersOfTwo(grid.seqs.front(), grid.max_seq)) {
    const float x = static_cast<float>(xs(static_cast<double>(v)));
    chart::FormatTokens(v, buf, sizeof buf);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddLine(ImVec2(x, a1.y), ImVec2(x, a1.y + em * 0.25f), dim);
    dl->AddText(ImVec2(std::min(x - ts.x * 0.5f, a1.x - ts.x), a1.y + em * 0.3f), dim, buf);
  }
  for (int64_t v : chart::PowersOfTwo(grid.batches.front(), grid.max_batch)) {
    const float y = static_cast<float>(ys(static_cast<double>(v)));
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddLine(ImVec2(a0.x - em * 0.25f, y), ImVec2(a0.x, y), dim);
    dl->AddText(ImVec2(a0.x - ts.x - em * 0.35f, std::max(a0.y, y - ts.y * 0.5f)), dim, buf);
  }
  const char* x_label = Tr("sequence length (tokens)");
  const ImVec2 xl = ImGui::CalcTextSize(x_label);
  dl->AddText(ImVec2((a0.x + a1.x - xl.x) * 0.5f, p0.y + size.y - xl.y), dim, x_label);
  dl->AddText(ImVec2(p0.x, p0.y), dim,
              s.config.mode == core::Mode::kInference ? Tr("concurrent sequences") : Tr("micro-batch"));

  // Current configuration.
  const core::Config& c = s.config;
  if (c.seq >= grid.seqs.front() && c.seq <= grid.max_seq && c.batch >= 1 && c.batch <= grid.max_batch) {
    const ImVec2 m(static_cast<float>(xs(static_cast<double>(c.seq))),
                   static_cast<float>(ys(static_cast<double>(c.batch))));
    dl->AddCircle(m, em * 0.45f, ink, 0, 2.0f);
  }

  if (hovered) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    if (mp.x >= a0.x && mp.x <= a1.x && mp.y >= a0.y && mp.y <= a1.y) {
      core::Config k = c;
      k.seq = std::max<int64_t>(1, std::llround(xs.Invert(mp.x)));
      k.batch = std::max<int64_t>(1, std::llround(ys.Invert(mp.y)));
      const core::Totals t = core::EstimateTotals(k);
      ImGui::BeginTooltip();
      ImGui::Text(Tr("batch %lld, sequence %lld"), static_cast<long long>(k.batch), static_cast<long long>(k.seq));
      if (t.ok) {
        ImGui::Text(Tr("%s of %s (%.0f%%)"), core::FormatBytes(t.peak_bytes, s.units).c_str(),
                    core::FormatBytes(t.capacity_bytes, s.units).c_str(), 100.0 * t.peak_bytes / t.capacity_bytes);
        ImGui::TextColored(t.Fits() ? GoodColor() : BadColor(), "%s", t.Fits() ? Tr("fits") : Tr("out of memory"));
      }
      ImGui::EndTooltip();
    }
  }
  // Legend.
  ImGui::TextDisabled("%s", g_gpu.ok ? "" : Tr("(drawn without the shader)"));
  ImGui::SameLine();
  static const double kStops[] = {0.25, 0.5, 0.85, 1.0, 1.5, 3.0};
  for (double r : kStops) {
    const ImVec2 q = ImGui::GetCursorScreenPos();
    const float bx = em * 0.8f, dy = (ImGui::GetTextLineHeight() - bx) * 0.5f;
    dl->AddRectFilled(ImVec2(q.x, q.y + dy), ImVec2(q.x + bx, q.y + dy + bx), FitU32(r));
    ImGui::Dummy(ImVec2(bx, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, em * 0.3f);
    ImGui::Text("%.0f%%", r * 100);
    ImGui::SameLine(0, em);
  }
  ImGui::NewLine();
}

void ShutdownFitMap() {
  if (g_gpu.ok) {
    gl::api.DeleteProgram(g_gpu.program);
    gl::api.DeleteVertexArrays(1, &g_gpu.vao);
    gl::api.DeleteTextures(1, &g_gpu.texture);
  }
  g_gpu = Gpu{};
}

}  // namespace llmmem::app
