#include "settings_dialog.hpp"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace steadyscope::app {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
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
  l->addWidget(buttons);
}

quint64 SettingsDialog::jobMemoryBudget() const { return quint64(std::llround(budget_->value() * kGiB)); }
void SettingsDialog::setJobMemoryBudget(quint64 bytes) { budget_->setValue(double(bytes) / kGiB); }

void SettingsDialog::save() { settings_->setJobMemoryBudget(jobMemoryBudget()); }

}  // namespace steadyscope::app
