// The table stage of DocumentParser (docs/tables.md): a table region's cells from the
// table-structure model (SLANet / SLANet-plus) on the region's crop, or from the grid method
// (ruled lines + text alignment, csrc/document/table_structure.h) when there is no model or its
// grid is unusable; the region's OCR lines (split at wide word gaps where they cross cells) as
// the cells' texts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "document/grid.h"
#include "edgeocr/document.h"
#include "edgeocr/model.h"
#include "edgeocr/pipeline.h"

namespace edgeocr {

// The most decoding steps read from a table model's output (SLANet stops at 500): a model that
// gives more has the rest left out (the grid is then truncated).
constexpr int kMaxTableSteps = 4096;
// The largest table model input side (fixed by the model or table_side).
constexpr int kMaxTableSide = 2048;

// A table model's classes in output order from its structure tokens (the "character" metadata):
// as PaddleOCR's TableLabelDecode, "<td></td>" added when missing, "<td>" removed, "sos" first
// and "eos" last; tokens that already hold "sos" and "eos" are the classes as they are.
std::vector<std::string> table_classes(const std::vector<std::string>& tokens);

// Checks a table model's signature before it is used: one float32 NCHW input ([1 or dynamic,
// 3, S, S], S fixed in 32..kMaxTableSide or dynamic), and two float32 outputs of rank 3: cell
// polygons [1, T, 8] and structure probabilities [1, T, table_classes(tokens).size()], T fixed
// or dynamic. InvalidModel naming the model, the output and what was expected.
void check_table_model(const Model& table, const std::vector<std::string>& tokens);

// The input side a table run uses: the model's fixed side, else the setting's.
int table_input_side(const Model& table, const PipelineConfig& c);

// Bytes one table-model run holds (its input, ONNX Runtime's activations, the outputs' copy):
// what DocumentParser reserves for the table stage under a memory budget.
std::size_t table_run_bytes(const Model& table, const PipelineConfig& c,
                            const MemoryProfile& profile);

// A line's text pieces as the table stage reads them (page pixels): the line's bounds, or its
// runs of words split where the gap between two words is wider than 0.8 times the line's height
// (docs/tables.md, "Texts in cells"). The reading order's text-grid rule reads the same pieces.
std::vector<LinePiece> line_pieces(const OcrLine& line);

// What the stage uses besides the region: the model (null: none) and its classes.
struct TableStageModels {
  const Model* model = nullptr;
  const std::vector<std::string>* classes = nullptr;
  MemoryPool* pool = nullptr;  // the model's input block comes from it (null: the heap)
  // Why the model is not used on this call although there is one ("" : it is used), e.g. the
  // memory budget is too small for its run: the grid method runs and the note says this.
  std::string model_unavailable;
};

// Fills region.table (and has_table) for a table region of `page` (the view the layout read):
// the model's grid when usable (settings table_method, table_min_score, table_min_fit), else the
// grid method's; region.table.method says which, region.table.note why. Cells' boxes are page
// pixels, their lines indices into doc.ocr.lines (a line split across cells is in each), their
// texts the pieces' texts in reading order. A region with no text and no ruled grid gets no
// table (has_table false, its lines stay a paragraph). Adds the model's run time to
// *model_seconds. Throws InvalidModel when the model's outputs do not match what it declared.
void recognize_table_region(const TableStageModels& models, const PipelineConfig& c,
                            const ImageView& page, Region& region, DocumentResult& doc,
                            double* model_seconds);

}  // namespace edgeocr
