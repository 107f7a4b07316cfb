import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

df = pd.read_csv("measurements.csv")
corr = df.select_dtypes("number").corr()
plt.figure(figsize=(8, 6))
sns.heatmap(corr, annot=True, fmt=".2f", cmap="coolwarm", vmin=-1, vmax=1)
plt.title("Correlation")
plt.tight_layout()
plt.savefig("correlation.png")
