#include "panels/welcome_widget.hpp"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace steadyscope::widgets {

WelcomeWidget::WelcomeWidget(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("welcome"));
  auto* outer = new QVBoxLayout(this);
  auto* box = new QWidget(this);
  box->setMaximumWidth(560);
  auto* v = new QVBoxLayout(box);
  auto* title = new QLabel(tr("<h1>Steadyscope</h1>"), box);
  auto* sub = new QLabel(tr("Inspect GPU profiler traces (PyTorch profiler / Kineto JSON), find their steady-state "
                            "steps and review the chunks a pipeline chose."),
                         box);
  sub->setWordWrap(true);
  openTrace_ = new QPushButton(tr("Open trace…"), box);
  openTrace_->setObjectName(QStringLiteral("openTrace"));
  openTrace_->setToolTip(tr("A .json, .json.gz, .zip or .json.zst trace (Ctrl+O). You can also drop a file here."));
  openSplitDir_ = new QPushButton(tr("Open split directory…"), box);
  openSplitDir_->setObjectName(QStringLiteral("openSplitDir"));
  openSplitDir_->setToolTip(tr("A directory written by the splitter, to review its chunks and the gate decision"));
  openSample_ = new QPushButton(tr("Open the sample"), box);
  openSample_->setObjectName(QStringLiteral("openSample"));
  for (QPushButton* b : {openTrace_, openSplitDir_, openSample_}) b->setMinimumHeight(34);
  recentTitle_ = new QLabel(tr("<b>Recent files</b>"), box);
  recent_ = new QListWidget(box);
  recent_->setObjectName(QStringLiteral("recentFiles"));
  recent_->setMinimumHeight(120);
  v->addWidget(title);
  v->addWidget(sub);
  v->addSpacing(12);
  v->addWidget(openTrace_);
  v->addWidget(openSplitDir_);
  v->addWidget(openSample_);
  v->addSpacing(12);
  v->addWidget(recentTitle_);
  v->addWidget(recent_);
  outer->addStretch(1);
  outer->addWidget(box, 0, Qt::AlignHCenter);
  outer->addStretch(2);
  connect(openTrace_, &QPushButton::clicked, this, &WelcomeWidget::openTraceRequested);
  connect(openSplitDir_, &QPushButton::clicked, this, &WelcomeWidget::openSplitDirRequested);
  connect(openSample_, &QPushButton::clicked, this, &WelcomeWidget::openSampleRequested);
  connect(recent_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* it) { emit openRecentRequested(it->data(Qt::UserRole).toString()); });
  setRecentFiles({});
}

void WelcomeWidget::setRecentFiles(const QStringList& files) {
  recent_->clear();
  for (const QString& f : files) {
    auto* it = new QListWidgetItem(QStringLiteral("%1 — %2").arg(QFileInfo(f).fileName(), QDir::toNativeSeparators(f)));
    it->setData(Qt::UserRole, f);
    it->setToolTip(f);
    recent_->addItem(it);
  }
  if (files.isEmpty()) {
    auto* it = new QListWidgetItem(tr("(none yet)"));
    it->setFlags(Qt::NoItemFlags);
    recent_->addItem(it);
  }
}

void WelcomeWidget::setSamplePath(const QString& path) {
  const bool ok = !path.isEmpty() && QFileInfo::exists(path);
  openSample_->setEnabled(ok);
  openSample_->setToolTip(ok ? path : tr("The bundled sample trace is not installed (%1)").arg(path));
}

}  // namespace steadyscope::widgets
