#include "settings_dialog.hpp"

#include <steadyscope/io.hpp>

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

namespace steadyscope::app {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;  // the cache's cap, as `du -h --si` and the CLI's 10G count
}

SettingsDialog::SettingsDialog(AppSettings* settings, quint64 freeBytes, QWidget* parent)
    : QDialog(parent), settings_(settings), budget_(new QDoubleSpinBox(this)) {
  setWindowTitle(tr("Settings"));
  budget_->setObjectName(QStringLiteral("settings.jobMemoryBudget"));
  budget_->setRange(0, 16384);
  budget_->setDecimals(1);
  budget_->setSingleStep(1);
  budget_->setSuffix(tr(" GB"));
  // 0 stands for "as much as is free when the ranks start loading".
  budget_->setSpecialValueText(tr("Automatic (the free memory, now %1 GB)").arg(double(freeBytes) / kGiB, 0, 'f', 1));
  budget_->setValue(double(settings->jobMemoryBudget()) / kGiB);

  auto* help = new QLabel(tr("Ranks of a job load several at a time. Fewer load together when their estimated "
                             "peaks would exceed this budget; one always loads."),
                          this);
  help->setWordWrap(true);
  auto* form = new QFormLayout;
  form->addRow(tr("Memory for ranks loading together:"), budget_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    save();
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* l = new QVBoxLayout(this);
  l->addLayout(form);
  l->addWidget(help);
  l->addWidget(cacheGroup());
  l->addWidget(buttons);
}

QWidget* SettingsDialog::cacheGroup() {
  auto* group = new QGroupBox(tr("Trace cache"), this);
  cacheOn_ = new QCheckBox(tr("Keep a parsed copy of each trace, to reopen it without parsing it again"), group);
  cacheOn_->setObjectName(QStringLiteral("settings.cacheEnabled"));
  cacheOn_->setChecked(settings_->traceCacheEnabled());
  cacheLimit_ = new QDoubleSpinBox(group);
  cacheLimit_->setObjectName(QStringLiteral("settings.cacheLimit"));
  cacheLimit_->setRange(0.1, 100000);
  cacheLimit_->setDecimals(1);
  cacheLimit_->setSuffix(tr(" GB"));
  cacheLimit_->setValue(double(settings_->traceCacheLimit()) / kGB);
  cacheLimit_->setToolTip(tr("When the copies take more, the least recently opened are removed"));
  cacheUsage_ = new QLabel(group);
  cacheUsage_->setObjectName(QStringLiteral("settings.cacheUsage"));
  cacheUsage_->setWordWrap(true);
  cacheUsage_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* empty = new QPushButton(tr("&Empty the cache"), group);
  empty->setObjectName(QStringLiteral("settings.cacheEmpty"));
  connect(empty, &QPushButton::clicked, this, &SettingsDialog::emptyCache);
  connect(cacheOn_, &QCheckBox::toggled, cacheLimit_, &QWidget::setEnabled);
  cacheLimit_->setEnabled(cacheOn_->isChecked());
  auto* form = new QFormLayout;
  form->addRow(tr("At most:"), cacheLimit_);
  auto* l = new QVBoxLayout(group);
  l->addWidget(cacheOn_);
  l->addLayout(form);
  l->addWidget(cacheUsage_);
  l->addWidget(empty, 0, Qt::AlignLeft);
  showCacheUsage();
  return group;
}

QString SettingsDialog::cacheUsageText() const { return cacheUsage_->text(); }

void SettingsDialog::showCacheUsage() {
  const TraceCache cache;  // the default folder; reading its size starts nothing
  const double used = double(cache.usedBytes());
  const QString size = used == 0     ? tr("empty")
                       : used < kGB ? tr("%1 MB used").arg(used / 1e6, 0, 'f', 1)
                                    : tr("%1 GB used").arg(used / kGB, 0, 'f', 2);
  cacheUsage_->setText(tr("%1: %2. A copy is used only while its trace file is unchanged.")
                           .arg(QString::fromStdString(cache.dir()), size));
}

void SettingsDialog::emptyCache() {
  TraceCache().clear();
  showCacheUsage();
}

quint64 SettingsDialog::jobMemoryBudget() const { return quint64(std::llround(budget_->value() * kGiB)); }
void SettingsDialog::setJobMemoryBudget(quint64 bytes) { budget_->setValue(double(bytes) / kGiB); }

void SettingsDialog::save() {
  settings_->setJobMemoryBudget(jobMemoryBudget());
  settings_->setTraceCacheEnabled(cacheOn_->isChecked());
  settings_->setTraceCacheLimit(quint64(std::llround(cacheLimit_->value() * kGB)));
}

}  // namespace steadyscope::app
