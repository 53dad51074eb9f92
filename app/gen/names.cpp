#include "names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace steadyscope::gen {

namespace kn {
const std::string_view kGemmSmall =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
    "cublas";
const std::string_view kGemmLarge =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cluster2x1x1_warpgroupsize2x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
const std::string_view kRmsNorm =
    "void vllm::rms_norm_kernel<c10::BFloat16, 8, 3>(c10::BFloat16*, c10::BFloat16 const*, long, long, c10::BFloat16 "
    "const*, float, int, int)";
const std::string_view kRotary =
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, "
    "c10::BFloat16 const*, int, long, long, long, int, int, int)";
const std::string_view kSiluMul =
    "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::BFloat16>(c10::BFloat16 "
    "const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)";
const std::string_view kCacheWrite =
    "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, "
    "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, __nv_bfloat16*, long "
    "const*, long, long, long, long, int, int, int, float const*, float const*)";
const std::string_view kFlashDecode =
    "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, "
    "true, false, false, false, true, true, false, false>(flash::Flash_fwd_params)";
const std::string_view kFlashPrefill =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false, "
    "true, false, false, true, true, false, false>(flash::Flash_fwd_params)";
const std::string_view kIndexSelect =
    "void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsigned int, 2, 2, "
    "-2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, "
    "unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, long)";
const std::string_view kArgmax =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, "
    "long, 4, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4, 4>)";
const std::string_view kSoftmax =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
    "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
const std::string_view kLayerNorm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
    "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)";
const std::string_view kGelu =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
    "const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() "
    "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)";
const std::string_view kSdpa =
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, "
    "false, false, false, false, true, true, false>(pytorch_flash::Flash_fwd_params)";
const std::string_view kAdam =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
    "(at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, double, bool, float*, "
    "float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous "
    "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, "
    "double, double, double, bool, float*, float*)";
const std::string_view kFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
    "at::native::FillFunctor<float>, std::array<char*, 1ul>)";
const std::string_view kSiluBackward =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::silu_backward_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
    "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, "
    "at::native::(anonymous namespace)::silu_backward_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
    "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)";
const std::string_view kGemmBackward =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
    "cublas";
const std::string_view kCrossEntropy =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, c10::BFloat16, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::BFloat16 const*, int)";
const std::string_view kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
}  // namespace kn

namespace {

// Deterministic stand-ins for KV-cache lengths (no randomness: names must
// not shift the timing sequence).
struct Roofline {
  long long cSk, cSqsq, cSqsk, gSk;
  explicit Roofline(const StepPlan& s) {
    const long long cr = std::max(s.cr, 1);
    cSk = s.cr ? s.ct + (s.ct * 13LL + s.cr) % 1500 : 0;
    cSqsq = s.cr ? 1LL * s.ct * s.ct / cr : 0;
    cSqsk = s.cr ? 1LL * s.ct * cSk / cr : 0;
    gSk = s.gr * (600LL + (s.ct * 7LL + s.gr * 131LL) % 2400);
  }
};

int padBucket(int n) {
  int b = 1;
  while (b < n) b *= 2;
  return b;
}

ParsedCounts vllmName(const Options& opt, const StepPlan& s, std::string& out) {
  auto it = std::back_inserter(out);
  if (opt.annotation == Annotation::Native) {
    fmt::format_to(it, "execute_context_{}({})_generation_{}({})", s.cr, s.ct, s.gr, s.gt);
  } else {
    const Roofline r(s);
    fmt::format_to(it, "execute_{}_context_{}(sq{}sk{}sqsq{}sqsk{})_generation_{}(sq{}sk{}sqsq{}sqsk{})", s.ct + s.gt,
                   s.cr, s.ct, r.cSk, r.cSqsq, r.cSqsk, s.gr, s.gt, r.gSk, s.gt, r.gSk);
  }
  return {s.cr, s.gr};
}

ParsedCounts sglangName(const Options& opt, const StepPlan& s, std::string& out) {
  auto it = std::back_inserter(out);
  const bool detailed = opt.annotation == Annotation::Detailed;
  const Roofline r(s);
  if (s.cr && !s.gr) {
    fmt::format_to(it, "step[EXTEND bs={} toks={}", s.cr, s.ct);
    if (detailed) fmt::format_to(it, " c_sq={} c_sk={} c_sqsq={} c_sqsk={}", s.ct, r.cSk, r.cSqsq, r.cSqsk);
    out += ']';
    return {s.cr, 0};
  }
  if (!s.cr) {  // decode (bs=0 for an empty step)
    fmt::format_to(it, "step[DECODE bs={}", s.gr);
    if (detailed) fmt::format_to(it, " g_sq={} g_sk={} g_sqsq={} g_sqsk={}", s.gt, r.gSk, s.gt, r.gSk);
    out += ']';
    return {0, s.gr};
  }
  if (!detailed) {  // the native parser reads MIXED as a context step
    fmt::format_to(it, "step[MIXED bs={} toks={}]", s.cr + s.gr, s.ct + s.gt);
    return {s.cr + s.gr, 0};
  }
  fmt::format_to(it,
                 "step[MIXED bs={} c={} g={} c_sq={} c_sk={} c_sqsq={} c_sqsk={} g_sq={} g_sk={} g_sqsq={} g_sqsk={}]",
                 s.cr + s.gr, s.cr, s.gr, s.ct, r.cSk, r.cSqsq, r.cSqsk, s.gt, r.gSk, s.gt, r.gSk);
  return {s.cr, s.gr};
}

void atomContextList(const StepPlan& s, std::string& out) {
  auto it = std::back_inserter(out);
  out += "ctx=[";
  const int shown = std::min(s.cr, 4);
  for (int i = 0; i < shown; ++i) fmt::format_to(it, "{}{}", i ? ", " : "", s.ct / s.cr + (i < s.ct % s.cr ? 1 : 0));
  out += ']';
  if (s.cr > shown) fmt::format_to(it, "...+{}", s.cr - shown);
}

ParsedCounts atomName(const Options& opt, const StepPlan& s, std::string& out) {
  auto it = std::back_inserter(out);
  const Roofline r(s);
  const bool detailed = opt.annotation == Annotation::Detailed;
  if (s.cr && !s.gr) {
    fmt::format_to(it, "prefill[bs={} tok={} ", s.cr, s.ct);
    atomContextList(s, out);
    if (detailed) fmt::format_to(it, " sqsq={} sqsk={} sk={}", r.cSqsq * s.cr, r.cSqsk * s.cr, r.cSk);
    out += ']';
    return {s.cr, 0};
  }
  const int bs = s.cr + s.gr;
  const int pad = (s.cr || bs == 0) ? bs : padBucket(bs);
  if (pad != bs)
    fmt::format_to(it, "decode[bs={}/{} tok={}", bs, pad, s.ct + s.gt);
  else
    fmt::format_to(it, "decode[bs={} tok={}", bs, s.ct + s.gt);
  if (s.cr) fmt::format_to(it, " p={}", s.cr);
  fmt::format_to(it, " d={}", s.gr);
  if (detailed)
    fmt::format_to(it, " sqsq={} sqsk={} sk={}", s.gt + r.cSqsq * s.cr, r.gSk + r.cSqsk * s.cr, r.gSk + r.cSk);
  out += ']';
  return {0, bs};  // the ATOM parser reads every decode[...] step as generation
}

}  // namespace

StepKind classify(ParsedCounts c) {
  if (c.contextRequests > 0) return c.generationRequests > 0 ? StepKind::PrefillDecode : StepKind::PrefillOnly;
  return c.generationRequests > 0 ? StepKind::DecodeOnly : StepKind::Idle;
}

ParsedCounts servingStepName(const Options& opt, const StepPlan& s, std::string& name) {
  name.clear();
  switch (opt.style) {
    case Style::Sglang: return sglangName(opt, s, name);
    case Style::Atom: return atomName(opt, s, name);
    default: return vllmName(opt, s, name);
  }
}

ParsedCounts diffusionStepName(int batch, int width, int height, std::string& name) {
  name.clear();
  fmt::format_to(std::back_inserter(name), "execute_diffusion_{}_{}x{}", batch, width, height);
  return {};
}

ParsedCounts trainingStepName(int index, std::string& name) {
  name.clear();
  fmt::format_to(std::back_inserter(name), "ProfilerStep#{}", index);
  // Unparsed names count as one-request decode steps (spec §2.4).
  return {0, 1};
}

std::string annotationFormat(const Options& opt) {
  switch (opt.style) {
    case Style::Diffusion: return "diffusion_native";
    case Style::Training: return opt.annotation == Annotation::None ? "none" : "profiler_step";
    default: return std::string(styleName(opt.style)) + "_" + annotationName(opt.annotation);
  }
}

}  // namespace steadyscope::gen
