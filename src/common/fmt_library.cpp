// fmt's compiled part, built here once for every configuration.
//
// Debian ships fmt as headers plus a shared library (libfmt.so) with no
// static archive. Linking that library makes a fully static cgmem impossible,
// and fmt's header-only mode makes every file that formats about five times
// slower to compile. So cgmem compiles fmt's out-of-line functions in this one
// file (format-inl.h defines them) and instantiates the templates that
// fmt's headers declare but leave to the library: then the dynamic cgmem and
// the static one (for the VM guest) link the same objects.
#include <fmt/format-inl.h>

namespace fmt::detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;

template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template void buffer<char>::append(const char*, const char*);
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace fmt::detail
