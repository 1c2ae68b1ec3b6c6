// placeholder; replaced by the verb table
print("carplayctl")
