// Fit map: colours the micro-batch x sequence-length plane by peak / capacity, sampled
// from an R32F grid (one texel per EstimateTotals evaluation; x: sequence length,
// y: batch, both log2-spaced) and interpolated bilinearly here (R32F is not filterable
// in WebGL2). The ramp mirrors chart::FitColor in src/app/chart_math.h; the OOM
// boundary (ratio 1) is drawn as an anti-aliased contour with fwidth.
uniform sampler2D u_ratio;
uniform vec4 u_grid;  // cols, rows, dark theme (0/1), unused
in vec2 v_uv;
out vec4 o_color;

float Ratio(ivec2 p) {
  p = clamp(p, ivec2(0), ivec2(u_grid.xy) - 1);
  return texelFetch(u_ratio, p, 0).r;
}

vec3 FitColor(float r) {
  if (r <= 0.0) return vec3(0.45);
  if (r <= 0.85) return mix(vec3(0.10, 0.55, 0.30), vec3(0.93, 0.80, 0.25), r / 0.85);
  if (r <= 1.0) return mix(vec3(0.93, 0.80, 0.25), vec3(0.95, 0.55, 0.15), (r - 0.85) / 0.15);
  return mix(vec3(0.80, 0.15, 0.15), vec3(0.40, 0.05, 0.08), clamp(log2(r) / 2.0, 0.0, 1.0));
}

void main() {
  vec2 g = v_uv * (u_grid.xy - 1.0);
  ivec2 i = ivec2(floor(g));
  vec2 f = g - floor(g);
  float a = Ratio(i), b = Ratio(i + ivec2(1, 0));
  float c = Ratio(i + ivec2(0, 1)), d = Ratio(i + ivec2(1, 1));
  float r = mix(mix(a, b, f.x), mix(c, d, f.x), f.y);
  vec3 col = FitColor(r);
  // Contour at ratio 1 (the OOM boundary), about 2 pixels wide.
  float w = max(fwidth(r), 1e-6);
  float line = 1.0 - smoothstep(0.0, 1.5, abs(r - 1.0) / w);
  vec3 ink = u_grid.z > 0.5 ? vec3(1.0) : vec3(0.0);
  o_color = vec4(mix(col, ink, line), 1.0);
}
