// 2-d convolution, transposed convolution, unfold (im2col) and max pooling of contiguous NCHW
// tensors, on the pool.
#pragma once

#include <cstdint>

namespace burn {

/** The geometry of a 2-d convolution-like op (sizes of the NCHW input, kernel and output). */
struct Conv2dShape {
  int64_t n, cin, h, w;      // input
  int64_t cout, kh, kw;      // output channels, kernel
  int64_t oh, ow;            // output spatial size
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
};

/**
 * out[N, Cout, OH, OW] = clamp(conv(x[N, Cin, H, W], w[Cout, Cin/G, kh, kw]) (+ bias[Cout])
 * (+ residual[N, Cout, OH, OW]), lo, hi) with JavaScript's max/min (NaN stays NaN); lo = −∞,
 * hi = +∞ for no activation (ReLU: 0, +∞). `packed` (optional): w as conv2d_pack_weights wrote it
 * for this geometry, read in place instead of packing the weights on every call.
 */
template <class T>
void conv2d(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out, T lo, T hi, const T* packed, const T* residual);

/** The length of conv2d's packed weights for this geometry (0: its path does not use them). */
template <class T>
int64_t conv2d_packed_length(const Conv2dShape& s);

/**
 * Which layout conv2d_pack_weights writes for this geometry with the instruction set in use (its
 * GEMM's MR·65536 + KC; 0 when conv2d_packed_length is): packed weights of another layout must not
 * be passed to conv2d (the instruction set can change at run time).
 */
template <class T>
int64_t conv2d_packed_layout(const Conv2dShape& s);

/** Packs w for conv2d calls of this geometry into `packed` (conv2d_packed_length values). */
template <class T>
void conv2d_pack_weights(const Conv2dShape& s, const T* w, T* packed);

/**
 * Transposed convolution: out[N, Cout, OH, OW] from x[N, Cin, H, W] and w[Cin, Cout/G, kh, kw]
 * (+ bias[Cout]). Here (h, w) is the input's size and (oh, ow) the output's; stride, padding and
 * dilation are those of the forward convolution it transposes.
 */
template <class T>
void conv_transpose2d(const Conv2dShape& s, const T* x, const T* w, const T* bias, T* out);

/**
 * The weight gradient of conv2d: dw[Cout, Cin/G, kh, kw] from x[N, Cin, H, W] and the output
 * gradient g[N, Cout, OH, OW], without building the im2col matrix.
 */
template <class T>
void conv2d_weight_grad(const Conv2dShape& s, const T* x, const T* g, T* dw);

/** im2col of a batch: out[N, C·kh·kw, OH·OW] (cin = C; cout and groups unused). */
template <class T>
void unfold2d(const Conv2dShape& s, const T* x, T* out);

/**
 * Max pooling: out[N, C, OH, OW] (cin = C) over windows of kh×kw with padding counted as −∞;
 * `indices` (optional) gets the flat `iy·W + ix` of each window's first maximum (NaN wins).
 */
template <class T>
void max_pool2d(const Conv2dShape& s, const T* x, T* out, int32_t* indices);

/**
 * The input gradient of max pooling: per plane (`planes` of `plane` inputs and `l` outputs),
 * dx = 0, then dx[indices[o]] += g[o] (indices as max_pool2d writes them; others are ignored).
 */
template <class T>
void max_pool_backward(int64_t planes, int64_t plane, int64_t l, const T* g, const int32_t* indices, T* dx);

}  // namespace burn
