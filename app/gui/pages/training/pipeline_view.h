// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/training/mixed_precision_step.h"

#include <QString>
#include <QWidget>

#include <array>
#include <optional>

class QComboBox;
class QEvent;
class QGridLayout;
class QLabel;
class QLineEdit;
class QScrollArea;
class QToolButton;

namespace fpx::gui {

class PipelineViewBits;

// The pipeline view: one gradient through one step of mixed-precision training, NVIDIA's
// recipe stage by stage (mixed_precision_step.h): per stage its recipe step, name, format,
// value (exact on hover) and bits, and what happened to it: rounded, subnormal, flushed,
// overflowed and skipped, an update lost in FP16 but kept by the FP32 master. A story (a
// preset) fills the form; every change recomputes at once on the exact core.
class PipelineView : public QWidget {
    Q_OBJECT

  public:
    // The form's exact fields, in the order the options name them.
    enum class Field { Gradient, Scale, Weight, LearningRate, Clip, Decay };
    static constexpr int kFieldCount = 6;

    explicit PipelineView(QWidget* parent = nullptr);

    // A preset's id (survives, flushed, overflow, master-keeps, clip-decay): fills the form.
    QString setPreset(const QString& id);
    // The preset the form holds, or an empty string when the values are the user's.
    QString presetId() const;
    // A field's text, recomputed at once; a problem shows in errorText() and errorField().
    // Clip takes "none" (or nothing) for no clipping.
    void setField(Field field, const QString& text);
    QString fieldText(Field field) const;
    // The passes' format (fp16, bf16, …); the problem when it is not one.
    QString setHalfFormat(const QString& id);
    QString halfFormat() const;

    // The last step computed (kept, greyed, while the form holds a refused value).
    const std::optional<MixedPrecisionStep>& step() const { return step_; }
    QString errorText() const { return error_; }
    // The field the problem is in; nullopt when there is none or it is no one field's.
    std::optional<Field> errorField() const { return errorField_; }
    QString summaryText() const;

  protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    struct StageRow {
        QLabel* number = nullptr;
        QLabel* name = nullptr;
        QLabel* format = nullptr;
        QLabel* value = nullptr;
        PipelineViewBits* bits = nullptr;
        QLabel* note = nullptr;
    };

    void buildForm();
    void buildStages();
    void recompute();
    void showStep(const MixedPrecisionStep& step);
    void showPresetOfForm();
    void fitCells();
    void writeNotes();
    void widenStoryList();
    void scaleBy(int exponentStep); // S × 2^step, the ÷2 and ×2 buttons
    std::optional<MixedPrecisionInputs> readForm(QString& error,
                                                 std::optional<Field>& culprit) const;

    QComboBox* preset_ = nullptr;
    std::array<QLineEdit*, kFieldCount> fields_{};
    QToolButton* scaleDown_ = nullptr;
    QToolButton* scaleUp_ = nullptr;
    QComboBox* half_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* errorLine_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    QWidget* stages_ = nullptr;
    QGridLayout* grid_ = nullptr;
    std::array<StageRow, kPipelineStageCount> rows_{};
    std::optional<MixedPrecisionStep> step_;
    QString error_;
    std::optional<Field> errorField_;
    bool filling_ = false; // a preset fills the form: one recomputation, at the end
    bool fitting_ = false;
    bool valueInNote_ = false; // the Value column does not fit: each note starts with it
};

} // namespace fpx::gui
