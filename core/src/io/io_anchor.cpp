// area placeholder; replaced as the area grows
namespace steadyscope { void ioAreaAnchor() {} }
