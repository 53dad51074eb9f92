// placeholder
namespace steadyscope::widgets { void anchor() {} }
