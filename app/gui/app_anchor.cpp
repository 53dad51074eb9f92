// placeholder
namespace steadyscope::app { void anchor() {} }
