#!/usr/bin/env python3
"""Body mass index calculator."""


def ask_float(prompt):
    while True:
        try:
            return float(input(prompt).replace(",", "."))
        except ValueError:
            print("Please enter a number.")


def category(bmi):
    if bmi < 18.5:
        return "underweight"
    if bmi < 25:
        return "normal weight"
    if bmi < 30:
        return "overweight"
    return "obese"


def main():
    weight = ask_float("Weight in kg: ")
    height = ask_float("Height in cm: ") / 100
    bmi = weight / height ** 2
    print(f"Your BMI is {bmi:.1f} ({category(bmi)})")


if __name__ == "__main__":
    main()
