# expect: LOW
# absent: MAI006 MAI001
# subprocess.Popen(['ls']) would spawn
print('use subprocess.Popen or os.system')
