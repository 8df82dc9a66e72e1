// CPU implementation of the Nyström embedding and the approximate (DTC) posterior.
namespace gpb::detail {}  // namespace gpb::detail
