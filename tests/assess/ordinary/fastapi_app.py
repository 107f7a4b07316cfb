from typing import Optional

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

app = FastAPI(title="Books API")


class Book(BaseModel):
    title: str
    author: str
    year: Optional[int] = None


books: dict[int, Book] = {}


@app.get("/books")
def list_books():
    return books


@app.post("/books/{book_id}")
def add_book(book_id: int, book: Book):
    if book_id in books:
        raise HTTPException(status_code=409, detail="exists")
    books[book_id] = book
    return book


@app.delete("/books/{book_id}")
def delete_book(book_id: int):
    if books.pop(book_id, None) is None:
        raise HTTPException(status_code=404, detail="not found")
    return {"deleted": book_id}
