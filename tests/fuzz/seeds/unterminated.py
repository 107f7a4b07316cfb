'''never closed
