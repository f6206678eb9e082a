// Fit map: a full-viewport quad from gl_VertexID (no vertex buffers); the app sets the
// viewport to the map's rectangle. The platform prepends the #version line.
out vec2 v_uv;

void main() {
  vec2 p = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  v_uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
