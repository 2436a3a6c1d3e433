// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/settled_scroll_bar.h"

#include <QEvent>
#include <QScrollBar>
#include <QTextDocument>
#include <QTextEdit>

#include <memory>

namespace fpx::gui {

namespace {

class Settler : public QObject {
  public:
    explicit Settler(QTextEdit& view) : QObject(&view), view_(&view) {
        view.installEventFilter(this);
    }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == view_ && event->type() == QEvent::Resize)
            settleScrollBar(*view_);
        return QObject::eventFilter(watched, event);
    }

  private:
    QTextEdit* view_;
};

} // namespace

void keepScrollBarSettled(QTextEdit& view) {
    if (!view.findChild<Settler*>(QString(), Qt::FindDirectChildrenOnly))
        new Settler(view);
    settleScrollBar(view);
}

void settleScrollBar(QTextEdit& view) {
    // The text measured on a copy, at the width it gets without the bar: the view's own
    // document is laid out at the width the view gives it now, bar or not.
    const QRect room = view.contentsRect();
    const int height =
        room.height() -
        (view.horizontalScrollBar()->isVisible() ? view.horizontalScrollBar()->height() : 0);
    const std::unique_ptr<QTextDocument> probe(view.document()->clone());
    probe->setTextWidth(room.width());
    const bool fits = probe->size().height() <= height;
    const Qt::ScrollBarPolicy policy = fits ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAlwaysOn;
    if (view.verticalScrollBarPolicy() != policy)
        view.setVerticalScrollBarPolicy(policy);
}

} // namespace fpx::gui
