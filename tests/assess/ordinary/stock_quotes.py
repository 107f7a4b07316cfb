import yfinance as yf

TICKERS = ["AAPL", "MSFT", "GOOGL", "AMZN"]
data = yf.download(TICKERS, period="5d", interval="1d", progress=False)["Close"]
print(data.round(2))
change = (data.iloc[-1] / data.iloc[0] - 1) * 100
for t in TICKERS:
    print(f"{t:6} {change[t]:+.2f}% over 5 days")
