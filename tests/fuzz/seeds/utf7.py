# coding: utf-7
x = 1
