#include "panels/find_panel.hpp"
#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

namespace {

class NumItem : public QTableWidgetItem {  // sorts by the raw number
 public:
  NumItem(const QString& text, double v) : QTableWidgetItem(text), v_(v) {
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& o) const override {
    if (auto* n = dynamic_cast<const NumItem*>(&o)) return v_ < n->v_;
    return QTableWidgetItem::operator<(o);
  }

 private:
  double v_;
};

constexpr int kNameRole = Qt::UserRole + 1;
}  // namespace

FindPanel::FindPanel(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel(tr("Type a name or a regular expression in the find box (Ctrl+F), then Enter."), this);
  summary_->setObjectName(QStringLiteral("findSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTableWidget(this);
  table_->setObjectName(QStringLiteral("findResults"));
  table_->setColumnCount(5);
  table_->setHorizontalHeaderLabels({tr("name"), tr("count"), tr("total"), tr("avg"), tr("max")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int c = 1; c < 5; ++c) table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(summary_);
  l->addWidget(table_);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (QTableWidgetItem* it = table_->item(row, 0)) emit nameActivated(it->data(kNameRole).toUInt());
  });
}

void FindPanel::setResults(const TraceDocument& doc, std::shared_ptr<const FindResults> found, const QString& pattern) {
  found_ = std::move(found);
  table_->setSortingEnabled(false);
  table_->setRowCount(0);
  if (!found_ || !doc) {
    head_.clear();
    summary_->setText(tr("Type a name or a regular expression in the find box (Ctrl+F), then Enter."));
    return;
  }
  const size_t matches = found_->events.size();
  head_ = (matches == 1 ? tr("<b>%1</b> event matches “%2” · total %3 · %4")
                        : tr("<b>%1</b> events match “%2” · total %3 · %4"))
              .arg(qs(formatCount(matches)), pattern.toHtmlEscaped(), qs(formatDuration(double(found_->totalNs))),
                   countOf(qint64(found_->perName.size()), tr("name"), tr("names")));
  summary_->setText(head_);
  const int n = int(std::min<size_t>(found_->perName.size(), 5000));
  table_->setRowCount(n);
  for (int r = 0; r < n; ++r) {
    const NameStats& s = found_->perName[size_t(r)];
    const std::string_view v = doc.trace->strings.view(s.name);
    auto* name = new QTableWidgetItem(QString::fromUtf8(v.data(), qsizetype(v.size())));
    name->setToolTip(name->text());
    name->setData(kNameRole, quint32(s.name));
    table_->setItem(r, 0, name);
    table_->setItem(r, 1, new NumItem(qs(formatCount(s.count)), double(s.count)));
    table_->setItem(r, 2, new NumItem(qs(formatDuration(double(s.totalNs))), double(s.totalNs)));
    table_->setItem(r, 3, new NumItem(qs(formatDuration(s.avgNs())), s.avgNs()));
    table_->setItem(r, 4, new NumItem(qs(formatDuration(double(s.maxNs))), double(s.maxNs)));
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(2, Qt::DescendingOrder);
}

void FindPanel::setCurrent(int index) {
  if (head_.isEmpty() || !found_) return;
  summary_->setText(head_ + tr("<br>match %1 of %2 · Enter next, Shift+Enter previous")
                                .arg(index + 1)
                                .arg(qs(formatCount(found_->events.size()))));
}

QString FindPanel::summary() const { return summary_->text(); }

}  // namespace steadyscope::widgets
