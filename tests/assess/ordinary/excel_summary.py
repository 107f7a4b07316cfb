from openpyxl import load_workbook

wb = load_workbook("budget.xlsx", data_only=True)
for ws in wb.worksheets:
    total = 0.0
    for row in ws.iter_rows(min_row=2, values_only=True):
        if row and isinstance(row[-1], (int, float)):
            total += row[-1]
    print(f"{ws.title:20} rows={ws.max_row - 1:4} total={total:12.2f}")
